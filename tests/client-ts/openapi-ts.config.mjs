// The generator's settings: a fetch client, zod schemas for every body and
// answer, and an SDK that validates each request and response with them.
// LOYALTY_SPEC names the spec file; the client goes to LOYALTY_CLIENT_DIR.
export default {
  input: process.env.LOYALTY_SPEC,
  output: { path: process.env.LOYALTY_CLIENT_DIR },
  logs: { level: 'warn' },
  plugins: [
    '@hey-api/client-fetch',
    'zod',
    { name: '@hey-api/sdk', validator: true },
  ],
};
