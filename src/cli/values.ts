/** The checked option conversions live in the application layer (src/app/values.ts), shared with the HTTP API. */
export { choiceOption, integerOption, numberOption, pageId } from '../app/values.js';
