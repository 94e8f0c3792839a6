/** The shape of the OpenAPI 3.1 document this project writes: only the parts it uses. */

export type JsonSchema = { [keyword: string]: unknown };
export type OpenApiReference = { $ref: string };
export interface OpenApiHeader {
  description: string;
  schema: JsonSchema;
}
export interface OpenApiMediaType {
  schema: JsonSchema;
  /** A real value (src/contract/openapi/examples.ts). */
  example: unknown;
}
export interface OpenApiResponse {
  description: string;
  headers: Record<string, OpenApiHeader | OpenApiReference>;
  content: Record<string, OpenApiMediaType>;
}
export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
  /** For path parameters: a real value (src/contract/openapi/examples.ts). */
  example?: string;
}
export interface OpenApiOperation {
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  security?: Array<Record<string, string[]>>;
  parameters?: OpenApiParameter[];
  requestBody?: { required: boolean; content: Record<string, OpenApiMediaType> };
  responses: Record<string, OpenApiResponse | OpenApiReference>;
}
export type OpenApiPathItem = Partial<Record<'get' | 'post', OpenApiOperation>>;
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string; license: { name: string; identifier: string } };
  servers: Array<{ url: string; description: string; variables: Record<string, { default: string; description: string }> }>;
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, OpenApiPathItem>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, OpenApiResponse>;
    headers: Record<string, OpenApiHeader>;
    securitySchemes: Record<string, { type: 'http'; scheme: 'bearer'; description: string }>;
  };
}
