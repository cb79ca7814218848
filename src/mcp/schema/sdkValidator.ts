/**
 * The SDK Client's `jsonSchemaValidator`, backed by the host's own bounded compiler (compiler.ts: compile
 * budget, RE2 patterns, linear uniqueItems), so whatever the SDK validates against a server's JSON Schema
 * goes through the same one path as the catalogue's tool validators. Each schema gets a compiler of its
 * own (nothing shared across servers or lists); a schema the host refuses fails validation with the reason.
 */
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/client';
import type { Limits } from '../limits';
import { describeAjvErrors } from './ajvErrors';
import { SchemaCompiler } from './compiler';

export class BoundedSchemaValidator implements jsonSchemaValidator {
  /** `warn`: ajv's warnings (an unknown `format`) for the server's log. */
  constructor(private readonly server: () => string, private readonly limits: () => Partial<Limits>, private readonly warn?: (message: string) => void) {}

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const compiler = new SchemaCompiler(this.server(), this.limits(), undefined, this.warn);
    const validate = compiler.compile(schema, 'schema');
    if (validate instanceof Error) {
      const message = validate.message;
      return () => ({ valid: false, data: undefined, errorMessage: message });
    }
    return (input: unknown) => (validate(input)
      ? { valid: true, data: input as T, errorMessage: undefined }
      : { valid: false, data: undefined, errorMessage: describeAjvErrors(validate.errors, 'value') });
  }
}
