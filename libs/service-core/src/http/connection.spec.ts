import { describe, expect, it } from '@jest/globals';
import { clientErrorProblem } from './connection.js';
import { toProblem } from './problem.filter.js';

describe('clientErrorProblem', () => {
  it.each([
    ['HPE_HEADER_OVERFLOW', 431, 'headers-too-large'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'request-timeout'],
    ['HPE_UNEXPECTED_CONTENT_LENGTH', 400, 'bad-request'],
    ['HPE_INVALID_METHOD', 400, 'bad-request'],
    [undefined, 400, 'bad-request'],
  ])("answers Node's %s with a %d %s problem", (code, status, slug) => {
    expect(clientErrorProblem({ code })).toEqual({
      type: expect.stringMatching(new RegExp(`/${slug}$`)),
      title: expect.any(String),
      status,
      detail: expect.any(String),
    });
  });
});

describe("toProblem of the router's errors", () => {
  it('maps an over-long path segment to 414 and a bad percent-escape to 400', () => {
    expect(toProblem({ code: 'FST_ERR_MAX_PARAM_LENGTH', statusCode: 414 }).problem).toMatchObject({ status: 414, type: expect.stringContaining('uri-too-long') });
    expect(toProblem({ code: 'FST_ERR_BAD_URL', statusCode: 400 }).problem).toMatchObject({ status: 400, type: expect.stringContaining('bad-request') });
  });
});
