// The screenshots in docs/ (shown in the README): one of each kind of page, made from the
// reports the real binary writes (see lib.mjs), in the system's headless Chromium.
//
//   cd report-tests && npm run screenshots     # writes docs/report-{scenario,campaign,nightly}.png

import { join } from "node:path";

import { launch, makeReports, pathToFileURL, repo, watchedPage } from "./lib.mjs";

const docs = join(repo, "docs");
const reports = makeReports();
const browser = await launch();
try {
  const shots = [
    // A reordering (e8 overtakes e6 and e7: crossing arrows) up to the breaking step.
    ["report-scenario.png", reports.pages.reordered, { width: 1500, height: 1040 }],
    ["report-campaign.png", reports.pages.campaign, { width: 1400, height: 900 }],
    ["report-nightly.png", reports.pages.nightly, { width: 1200, height: 1000 }],
  ];
  for (const [name, file, viewport] of shots) {
    const w = await watchedPage(browser.context, reports.dir);
    await w.page.setViewportSize(viewport);
    await w.page.goto(pathToFileURL(file).href);
    if (name === "report-scenario.png") {
      // The diagram and the panel side by side, at the breaking step.
      await w.page.evaluate(() => {
        document.querySelector("details.legend").open = false;
        document.querySelector("section.verdict").scrollIntoView();
      });
    }
    await w.page.screenshot({ path: join(docs, name) });
    if (w.outside.length > 0 || w.errors.length > 0) {
      throw new Error(`${file}: ${[...w.outside, ...w.errors].join("\n")}`);
    }
    await w.page.close();
    console.log(`docs/${name}`);
  }
} finally {
  await browser.close();
  reports.remove();
}
