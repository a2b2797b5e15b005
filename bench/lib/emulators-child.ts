/**
 * The local stand-ins (dynalite, fauxqs) in a process of their own, for a benchmark that measures only its own CPU:
 * started on `process.argv[2]` (a data directory), their endpoints sent to the parent, stopped when it disconnects.
 */
import { startEmulators } from '#local/emulators.ts';

const emulators = await startEmulators(process.argv[2]!);
const { dynamoServer: _server, stop, ...endpoints } = emulators;
process.send!(endpoints);
process.on('disconnect', () => {
  void stop().finally(() => process.exit(0));
});
