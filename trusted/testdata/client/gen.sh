#!/bin/sh
# Regenerates ../persisted-documents.json (GraphQL Codegen client preset) and
# ../persisted_queries.json (Relay compiler) from the documents in src/ with
# the real tools, pinned in package.json. Run from anywhere; needs npm.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund >/dev/null
# The tools need the federation directives declared, and no `extend schema @link`.
{
	echo 'directive @key(fields: String!, resolvable: Boolean = true) repeatable on OBJECT | INTERFACE'
	sed '/^extend schema/,/^  @link/d' ../../../schema.graphqls
} >schema.tools.graphql
rm -rf gql __generated__
mkdir __generated__
echo '{}' >persisted_queries.json # Relay writes into an existing file
npx graphql-codegen --config codegen.yml
npx relay-compiler
cp gql/persisted-documents.json ../persisted-documents.json
cp persisted_queries.json ../persisted_queries.json
rm -rf gql __generated__ persisted_queries.json schema.tools.graphql node_modules
echo "wrote ../persisted-documents.json and ../persisted_queries.json"
