/** The restricted JSON value profile of the version-3 wire format (spec 7.6). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
