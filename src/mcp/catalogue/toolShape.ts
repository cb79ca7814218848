/**
 * A fast check that a listed tool has the shape MCP requires (the spec's `Tool`), for a tools list as it arrives:
 * the SDK's zod schema walks every `inputSchema.properties` value through a recursive union and copies it, which was
 * the largest cost of a 10,000-tool list after the parse (issue 27). `plainToolShape` says true only for a tool the
 * spec schema certainly accepts (a conservative subset: no `icons`, JSON values only); anything else goes to the spec
 * schema (specParse), which decides and words the problem.
 */

const TASK_SUPPORT = new Set(['required', 'optional', 'forbidden']);
const ANNOTATION_HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
const TOOL_KEYS = new Set(['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', 'execution', '_meta']);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

const optString = (v: unknown) => v === undefined || typeof v === 'string';

/** Every element a string (holes of a sparse array are not: `every` would skip them). */
function strings(a: unknown[]): boolean {
  for (let i = 0; i < a.length; i++) if (typeof a[i] !== 'string') return false;
  return true;
}

/** Every value under `v` is a JSON value (string, finite number, boolean, null, array, plain object); iterative. */
function jsonValues(v: unknown): boolean {
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    switch (typeof x) {
      case 'string': case 'boolean': continue;
      case 'number': if (!Number.isFinite(x)) return false; continue;
      case 'object': {
        if (x === null) continue;
        if (Array.isArray(x)) {
          for (let i = 0; i < x.length; i++) stack.push(x[i]);
          continue;
        }
        if (!isPlainObject(x)) return false;
        for (const k of Object.keys(x)) {
          if (k === '__proto__') return false;
          stack.push(x[k]);
        }
        continue;
      }
      default: return false;
    }
  }
  return true;
}

/** True when `tool` certainly has the spec's Tool shape; false means "ask the spec schema" (not "invalid"). */
export function plainToolShape(tool: unknown): boolean {
  if (!isPlainObject(tool)) return false;
  for (const k of Object.keys(tool)) if (!TOOL_KEYS.has(k)) return false;
  if (typeof tool.name !== 'string' || !optString(tool.title) || !optString(tool.description)) return false;
  const input = tool.inputSchema;
  if (!isPlainObject(input) || input.type !== 'object') return false;
  if (input.properties !== undefined && !(isPlainObject(input.properties) && jsonValues(input.properties))) return false;
  if (input.required !== undefined && !(Array.isArray(input.required) && strings(input.required))) return false;
  const output = tool.outputSchema;
  if (output !== undefined && !(isPlainObject(output) && optString(output.$schema))) return false;
  const a = tool.annotations;
  if (a !== undefined && !(isPlainObject(a) && optString(a.title) && ANNOTATION_HINTS.every(h => a[h] === undefined || typeof a[h] === 'boolean'))) return false;
  const e = tool.execution;
  if (e !== undefined && !(isPlainObject(e) && (e.taskSupport === undefined || TASK_SUPPORT.has(e.taskSupport as string)))) return false;
  if (tool._meta !== undefined && !isPlainObject(tool._meta)) return false;
  return true;
}
