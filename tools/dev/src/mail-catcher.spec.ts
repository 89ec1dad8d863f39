import { describe, expect, it } from '@jest/globals';
import { linksIn } from './mail-catcher.js';

describe('linksIn', () => {
  it('finds each link of an e-mail once, fragments kept (the sign-in code is in one)', () => {
    const text = [
      'Sign in to Acme Staffing:',
      'http://localhost:3005/sign-in#code=q7GQ0mJx1o3lqJ4n0cZ8k0wQpV9tYv2Qm1nXk5sVv8A',
      'Or Northside: <https://portal.example/sign-in#code=abc_DEF-123>',
      'again http://localhost:3005/sign-in#code=q7GQ0mJx1o3lqJ4n0cZ8k0wQpV9tYv2Qm1nXk5sVv8A',
    ].join('\n');
    expect(linksIn(text)).toEqual(['http://localhost:3005/sign-in#code=q7GQ0mJx1o3lqJ4n0cZ8k0wQpV9tYv2Qm1nXk5sVv8A', 'https://portal.example/sign-in#code=abc_DEF-123']);
    expect(linksIn('no links here')).toEqual([]);
  });
});
