// SvelteKit's virtual module for public runtime environment variables (this example has no
// SvelteKit build: the type is declared here; the app reads it as a SvelteKit app does).
declare module "$env/dynamic/public" {
  export const env: Record<string, string | undefined>;
}
