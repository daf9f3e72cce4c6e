import type { NestFastifyApplication } from '@nestjs/platform-fastify';

export const PAYME_PATH = '/callbacks/payme/';

/**
 * Payme expects JSON-RPC's own -32700 for a body that is not JSON, answered with HTTP 200 like every
 * other error; the platform's JSON parser would end such a request as a 400 problem before the
 * controller runs. On Payme's paths only, the JSON parser keeps the raw body and leaves the parsing
 * to the controller (parsePaymeRequest); every other path keeps Fastify's parser as it was.
 * Call after `app.init()`, which registers the parser this one wraps.
 */
export function letPaymeParseItsBody(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  const { bodyLimit, onProtoPoisoning, onConstructorPoisoning } = fastify.initialConfig;
  const json = fastify.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, (req, body, done) => {
    (req as { rawBody?: Buffer }).rawBody = body as Buffer;
    if (req.url.startsWith(PAYME_PATH)) return done(null, {});
    json(req, (body as Buffer).toString('utf8'), done);
  });
}
