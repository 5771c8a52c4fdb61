/** Tailwind CSS v4 through PostCSS for the console (app/globals.css). */
const config = { plugins: { '@tailwindcss/postcss': {} } };
export default config;
