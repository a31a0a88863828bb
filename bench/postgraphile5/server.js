// PostGraphile 5 as scripts/bench-postgraphile.sh serves it (issue 26): the
// amber preset and the connection filter over the app schema, grafserv on
// node's own http server, set up for production (no GraphiQL, no watch,
// data stringified by grafast, no query log). Run with NODE_ENV=production:
//
//   node server.js DATABASE_URL HOST PORT
import { createServer } from "node:http";
import { postgraphile } from "postgraphile";
import { makePgService } from "postgraphile/adaptors/pg";
import { grafserv } from "postgraphile/grafserv/node";
import { PostGraphileAmberPreset } from "postgraphile/presets/amber";
import { PostGraphileConnectionFilterPreset } from "postgraphile-plugin-connection-filter";

const [connectionString, host, port] = process.argv.slice(2);
if (!connectionString || !host || !port) {
  console.error("usage: node server.js DATABASE_URL HOST PORT");
  process.exit(2);
}

/** @type {GraphileConfig.Preset} */
const preset = {
  extends: [PostGraphileAmberPreset, PostGraphileConnectionFilterPreset],
  pgServices: [makePgService({ connectionString, schemas: ["app"] })],
  grafserv: {
    host,
    port: Number(port),
    graphqlPath: "/graphql",
    graphiql: false,
    watch: false,
    websockets: false,
    outputDataAsString: true,
  },
  grafast: { explain: false },
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const server = createServer();
server.on("error", (e) => {
  console.error(e);
  process.exit(1);
});
await serv.addTo(server);
server.listen(Number(port), host, () => console.log(`PostGraphile 5 on http://${host}:${port}/graphql`));
for (const sig of ["SIGTERM", "SIGINT"]) {
  process.on(sig, () => {
    server.close();
    pgl.release().finally(() => process.exit(0));
  });
}
