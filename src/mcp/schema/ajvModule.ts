/**
 * ajv and its formats, for the schema compiler (compiler.ts) only. A module of its own so that esbuild.mjs (LAZY) can
 * make it a bundle loaded with the first schema a server sends (dist/ajv.js, ~150 KiB minified): activation parses
 * none of it, and a window whose servers send no tool schema never loads it.
 */
import Ajv from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

export { Ajv, Ajv2019, Ajv2020, addFormats };
