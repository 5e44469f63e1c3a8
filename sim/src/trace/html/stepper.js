// The step panel of a scenario page: shows, for the chosen step, each tab's render beside
// the DB. Steps are chosen by clicking a row of the diagram, with the buttons or the slider,
// or with the keys ← → (also j k), Home, End and b (the breaking step); the address says
// which step is shown (#step-N), so a link can point at one. Everything it shows was
// written, escaped, into the page's data by reconcile-sim: nothing is fetched.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  var data = JSON.parse(document.getElementById("steps-data").textContent);
  var steps = data.steps;
  var views = data.views;
  var slider = document.getElementById("step-slider");
  var now = document.getElementById("step-now");
  var tabs = document.getElementById("tabs");
  var pane = document.getElementById("diagram");
  var rows = [];
  var current = -1;
  for (var i = 0; i < steps.length; i++) rows.push(document.getElementById("row-" + i));

  // One slot per tab, refilled only when its view changes (most steps touch one tab).
  var slots = [];
  var shown = [];
  var hashTimer = null;

  function show(i, scroll) {
    if (steps.length === 0) return;
    i = Math.max(0, Math.min(steps.length - 1, i));
    if (i === current) return;
    if (current >= 0 && rows[current]) rows[current].classList.remove("current");
    current = i;
    var step = steps[i];
    now.innerHTML = step.head;
    if (slots.length !== step.tabs.length) {
      tabs.textContent = "";
      slots = [];
      shown = [];
      for (var s = 0; s < step.tabs.length; s++) {
        slots.push(tabs.appendChild(document.createElement("div")));
        shown.push(-1);
      }
    }
    for (var t = 0; t < step.tabs.length; t++) {
      if (shown[t] !== step.tabs[t]) {
        slots[t].innerHTML = views[step.tabs[t]];
        shown[t] = step.tabs[t];
      }
    }
    slider.value = String(i);
    var row = rows[i];
    if (row) {
      row.classList.add("current");
      if (scroll) keepInView(row);
    }
    // The address follows once stepping pauses (browsers limit how often it may change).
    if (hashTimer !== null) clearTimeout(hashTimer);
    hashTimer = setTimeout(function () {
      hashTimer = null;
      try {
        history.replaceState(null, "", "#step-" + steps[current].label);
      } catch (e) {
        // An address that cannot change (some viewers) only loses the link.
      }
    }, 300);
  }

  // Scroll the diagram's pane (not the page) just enough to show the row; its place is
  // read from its attributes, which needs no layout.
  function keepInView(row) {
    var bg = row.querySelector("rect");
    var top = bg.y.baseVal.value, bottom = top + bg.height.baseVal.value;
    if (top < pane.scrollTop + 30) pane.scrollTop = Math.max(0, top - 60);
    else if (bottom > pane.scrollTop + pane.clientHeight - 10) pane.scrollTop = bottom - pane.clientHeight + 60;
  }

  function byLabel(label) {
    for (var i = 0; i < steps.length; i++) if (steps[i].label === label) return i;
    return -1;
  }

  function go(i) { show(i, true); }

  document.getElementById("first").addEventListener("click", function () { go(0); });
  document.getElementById("prev").addEventListener("click", function () { go(current - 1); });
  document.getElementById("next").addEventListener("click", function () { go(current + 1); });
  document.getElementById("last").addEventListener("click", function () { go(steps.length - 1); });
  slider.addEventListener("input", function () { go(Number(slider.value)); });
  var toBreak = document.getElementById("go-break");
  if (toBreak) toBreak.addEventListener("click", function () { go(data["break"]); });
  for (var r = 0; r < rows.length; r++) {
    (function (i) {
      if (rows[i]) rows[i].addEventListener("click", function () { show(i, false); });
    })(r);
  }
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target;
    // The slider steps by itself; text fields keep their keys.
    if (t === slider || (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable))) return;
    var k = e.key;
    if (k === "ArrowRight" || k === "j") go(current + 1);
    else if (k === "ArrowLeft" || k === "k") go(current - 1);
    else if (k === "Home") go(0);
    else if (k === "End") go(steps.length - 1);
    else if (k === "b" && data["break"] !== null) go(data["break"]);
    else return;
    e.preventDefault();
  });

  // Copy buttons: the clipboard where the viewer allows it, else the text selected.
  var copies = document.querySelectorAll("button.copy");
  for (var c = 0; c < copies.length; c++) {
    copies[c].addEventListener("click", function (e) {
      var button = e.currentTarget;
      var source = document.getElementById(button.getAttribute("data-copy"));
      var status = button.parentNode.querySelector(".copied");
      var text = source.textContent;
      function selected() {
        var range = document.createRange();
        range.selectNodeContents(source);
        var sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
        if (status) status.textContent = "selected: press Ctrl+C (⌘C) to copy";
      }
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(function () {
          if (status) status.textContent = "copied";
        }, selected);
      } else {
        selected();
      }
    });
  }

  // Everything prints: the steps as text too.
  window.addEventListener("beforeprint", function () {
    var open = document.querySelectorAll("details");
    for (var d = 0; d < open.length; d++) open[d].setAttribute("open", "");
  });

  // The step the address names (#step-d3), if any.
  function fromAddress() {
    var m = /^#step-(.+)$/.exec(location.hash);
    return m ? byLabel(decodeURIComponent(m[1])) : -1;
  }
  window.addEventListener("hashchange", function () {
    var i = fromAddress();
    if (i >= 0) go(i);
  });
  var start = fromAddress();
  show(start >= 0 ? start : data.initial, true);
})();
