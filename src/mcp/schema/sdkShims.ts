/**
 * What the extension and CLI bundles give the SDK client for its `@modelcontextprotocol/client/_shims` import
 * (esbuild.mjs swaps it in; unbundled code, as in tests, uses the SDK's own). The SDK's Node shim brings its
 * default JSON Schema validator, a copy of ajv of ~150 KiB parsed at load, although the host always passes its
 * own (sdkValidator.ts). Here the same default loads only when something constructs it: dist/sdk-ajv.js is the
 * SDK's own shim, built apart (esbuild.mjs, LAZY).
 */
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/client';

/** As in the SDK's Node shim: in Node, a `TypeError` from fetch is never a CORS error. */
export const CORS_IS_POSSIBLE = false;

interface SdkShims {
  DefaultJsonSchemaValidator: new (...args: unknown[]) => jsonSchemaValidator;
}
let sdkShims: SdkShims | undefined;

/** The SDK's own default validator, loaded on first construction. */
export class DefaultJsonSchemaValidator implements jsonSchemaValidator {
  private readonly inner: jsonSchemaValidator;

  constructor(...args: unknown[]) {
    // A require of the SDK's shim: esbuild.mjs turns it into a require of dist/sdk-ajv.js.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    sdkShims ??= require('@modelcontextprotocol/client/_shims') as SdkShims;
    this.inner = new sdkShims.DefaultJsonSchemaValidator(...args);
  }

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    return this.inner.getValidator<T>(schema);
  }
}
