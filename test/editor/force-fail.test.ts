// A switch, not a test: test/editor/index.ts loads this file only with MCP_HOST_FORCE_FAIL=1, to prove that a
// failing test fails the run (`MCP_HOST_FORCE_FAIL=1 npm run test:editor` must exit non-zero).
import * as assert from 'assert';

describe('Forced failure (MCP_HOST_FORCE_FAIL=1)', () => {
  it('fails on purpose', () => {
    assert.fail('MCP_HOST_FORCE_FAIL=1: this test fails on purpose');
  });
});
