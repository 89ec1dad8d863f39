import { Ajv, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';

/** One HTTP answer a test received from a service, read whole. */
export interface SeenResponse {
  app: string;
  method: string;
  /** The request's path, without its query. */
  path: string;
  status: number;
  contentType: string;
  text: string;
}

interface MediaType {
  schema?: Record<string, unknown>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, MediaType> }> }>>;
  components?: Record<string, unknown>;
}

// ajv-formats is CommonJS: its plugin is `module.exports` and, again, its `default`.
const addFormats = ajvFormats.default;

/**
 * Records every answer `fetch` receives from the given services while it is installed, so a test can
 * check afterwards that each one is what the service's OpenAPI document says it answers.
 */
export class ResponseRecorder {
  private readonly pending: Array<Promise<SeenResponse>> = [];
  private original?: typeof fetch;

  /** `services`: app name → its base URL. */
  constructor(private readonly services: () => Record<string, string>) {}

  install(): void {
    const original = (this.original = globalThis.fetch);
    globalThis.fetch = async (input, init) => {
      const response = await original(input, init);
      const url = new URL(input instanceof Request ? input.url : String(input));
      const app = Object.entries(this.services()).find(([, base]) => new URL(base).origin === url.origin)?.[0];
      if (app) {
        const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
        const copy = response.clone();
        this.pending.push(
          copy.text().then((text) => ({ app, method, path: url.pathname, status: response.status, contentType: response.headers.get('content-type') ?? '', text })),
        );
      }
      return response;
    };
  }

  uninstall(): void {
    if (this.original) globalThis.fetch = this.original;
  }

  seen(): Promise<SeenResponse[]> {
    return Promise.all(this.pending);
  }
}

/**
 * Checks answers against the services' OpenAPI documents: the operation and its status must be
 * documented, a body must come in a documented media type, and it must match that type's schema.
 * Returns one line per kind of answer that does not, naming the request and what is wrong.
 */
export class DocumentedResponses {
  private readonly ajv = new Ajv({ strict: false, allErrors: false });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly documents: Map<string, OpenApiDocument>) {
    addFormats(this.ajv);
    for (const [app, document] of documents) this.ajv.addSchema({ $id: `${app}.json`, components: document.components ?? {} });
  }

  problems(responses: SeenResponse[]): string[] {
    const problems: string[] = [];
    for (const response of responses) {
      const problem = this.problem(response);
      if (problem) problems.push(`${response.app} ${response.method} ${response.path} → ${response.status}: ${problem}`);
    }
    return [...new Set(problems)];
  }

  private problem(response: SeenResponse): string | undefined {
    const document = this.documents.get(response.app);
    if (!document) return 'no document for this service';
    const template = operationPath(document, response.method, response.path);
    if (!template) return 'operation not in the document';
    const documented = document.paths[template][response.method.toLowerCase()].responses?.[String(response.status)];
    if (!documented) return `status not documented for ${response.method} ${template}`;
    if (response.text === '') return undefined;
    const mediaType = response.contentType.split(';')[0].trim();
    const media = documented.content?.[mediaType];
    if (!media) return `a ${mediaType || 'untyped'} body, but the document gives ${Object.keys(documented.content ?? {}).join(', ') || 'no body'}`;
    if (!media.schema) return `no schema for ${mediaType}`;
    let body: unknown = response.text;
    if (/json/.test(mediaType)) {
      try {
        body = JSON.parse(response.text);
      } catch {
        return 'a JSON media type with a body that is not JSON';
      }
    }
    const validate = this.validator(response.app, `${template} ${response.method} ${response.status} ${mediaType}`, media.schema);
    if (validate(body)) return undefined;
    const error = validate.errors?.[0];
    return `${error?.instancePath || '(body)'} ${error?.message ?? 'does not match'} (schema ${error?.schemaPath ?? '?'})`;
  }

  private validator(app: string, key: string, schema: Record<string, unknown>): ValidateFunction {
    const id = `${app} ${key}`;
    let validate = this.validators.get(id);
    if (!validate) {
      // The document's own `#/components/…` references, read against the document registered for the service.
      validate = this.ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${app}.json#/components/`)));
      this.validators.set(id, validate);
    }
    return validate;
  }
}

/** The document's path template for a request path: a literal path before one with parameters. */
function operationPath(document: OpenApiDocument, method: string, path: string): string | undefined {
  const candidates = Object.keys(document.paths).filter((template) => document.paths[template][method.toLowerCase()] !== undefined);
  const literal = candidates.find((template) => template === path);
  if (literal) return literal;
  return candidates
    .filter((template) => new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`).test(path))
    .sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0))[0];
}
