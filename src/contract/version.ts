/** The version of the interface description (OpenAPI info.version), reported by the health endpoint too. */
export const INTERFACE_VERSION = '1.1.0';
