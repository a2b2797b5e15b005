// npm puts node_modules/.bin first on PATH for scripts, so the `node` dev dependency (Node 22) runs them.
// Calling a tool directly (./node_modules/.bin/vitest) would silently run the system Node instead: refuse that.
if (!process.versions.node.startsWith('22.')) {
  console.error(`Switchboard needs Node 22 (got ${process.versions.node}). Run it through npm (npm start, npm test).`);
  process.exit(1);
}
