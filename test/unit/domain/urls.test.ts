import { withoutTrailingSlashes } from '../../../domain/urls';

describe('withoutTrailingSlashes', () => {
  it('drops every trailing slash and nothing else', () => {
    expect(withoutTrailingSlashes('https://ops.example.com///')).toBe('https://ops.example.com');
    expect(withoutTrailingSlashes('https://ops.example.com/base/')).toBe('https://ops.example.com/base');
    expect(withoutTrailingSlashes('https://ops.example.com')).toBe('https://ops.example.com');
  });

  it('takes linear time on a long run of slashes that does not end the text', () => {
    const hostile = `${'/'.repeat(200_000)}x`;
    const started = performance.now();
    expect(withoutTrailingSlashes(hostile)).toBe(hostile);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
