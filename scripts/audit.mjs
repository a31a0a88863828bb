// Runs graphql-http's GraphQL-over-HTTP server audit against a running
// gateway and prints every result. Exit status: 1 when a MUST audit fails
// (or the audit cannot run), 0 otherwise; SHOULD/MAY results are reported.
//
// Usage: node scripts/audit.mjs GRAPHQL_HTTP_DIR URL
//   GRAPHQL_HTTP_DIR  an unpacked graphql-http package (scripts/audit.sh
//                     fetches the version pinned in package-lock.json)
//   URL               the GraphQL endpoint, e.g. http://127.0.0.1:8080/graphql
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const [dir, url] = process.argv.slice(2);
if (!dir || !url) {
	console.error('usage: node scripts/audit.mjs GRAPHQL_HTTP_DIR URL');
	process.exit(2);
}
const { auditServer } = await import(pathToFileURL(join(dir, 'lib', 'audits', 'index.mjs')).href);

const results = await auditServer({ url });
const counts = {};
let mustFailures = 0;
for (const r of results) {
	const level = r.name.split(' ', 1)[0]; // MUST, SHOULD or MAY
	const ok = r.status === 'ok';
	const key = `${level} ${ok ? 'ok' : r.status}`;
	counts[key] = (counts[key] || 0) + 1;
	if (!ok && level === 'MUST') mustFailures++;
	let line = `${ok ? 'ok  ' : r.status.padEnd(4)} ${r.id} ${r.name}`;
	if (!ok) {
		let body = '';
		try {
			body = await r.response.text();
		} catch {}
		line += `\n       reason: ${r.reason}\n       response: HTTP ${r.response.status} ${r.response.headers.get('content-type') || ''} ${body.slice(0, 300).replace(/\s+/g, ' ')}`;
	}
	console.log(line);
}
console.log(
	`audit: ${results.length} audits; ` +
		Object.entries(counts)
			.sort()
			.map(([k, n]) => `${n} ${k}`)
			.join(', '),
);
if (mustFailures) {
	console.error(`audit: ${mustFailures} MUST audit(s) failed`);
	process.exit(1);
}
