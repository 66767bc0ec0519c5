// Prettier: the style the code was already written in (single quotes, semicolons, trailing commas).
// printWidth 180: the code's lines are long (1 in 70 is over 140 characters); 180 reformats the
// fewest lines of the widths tried (120 to 220) while staying readable side by side.
export default {
  singleQuote: true,
  printWidth: 180,
  // YAML (docker-compose.yml) keeps the double quotes it is written with.
  overrides: [{ files: ['*.yml', '*.yaml'], options: { singleQuote: false } }],
};
