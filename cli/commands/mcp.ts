/**
 * `fairway mcp --snapshot FILE --intents DIR`: the agent-side MCP intent
 * server over stdio (spec 7.12). It takes no queue store and no credentials:
 * it reads the snapshot and writes only staged intents. Nothing is printed on
 * stdout except the MCP protocol itself.
 */
import type { CommandModule } from '../context.ts';
import { UsageError } from '../output.ts';

export const registerMcp: CommandModule = (program, ctx) => {
  program.command('mcp')
    .description('Serve the work-queue MCP intent tools over stdio from an activation snapshot; stage intents into a directory.')
    .requiredOption('--snapshot <file>', 'activation snapshot written by `fairway snapshot`')
    .requiredOption('--intents <dir>', 'directory for staged intent files (the only place this server writes)')
    .action(ctx.action(async (g, o: { snapshot: string; intents: string }) => {
      if (g.dir !== undefined || g.remote !== undefined || g.github !== undefined || g.ledger !== undefined) {
        throw new UsageError('the MCP server reads only its snapshot; it takes no --repo, --dir, --remote or --ledger', 'mcp_no_store');
      }
      // Loaded on demand so other commands start without the MCP SDK.
      const [{ StdioServerTransport }, { loadSnapshot }, { IntentStore }, { createIntentServer }] = await Promise.all([
        import('@modelcontextprotocol/sdk/server/stdio.js'),
        import('../../lib/intents/snapshot.ts'),
        import('../../lib/intents/store.ts'),
        import('../../mcp/server.ts'),
      ]);
      const loaded = await loadSnapshot(o.snapshot);
      const server = createIntentServer({ loaded, intents: new IntentStore(o.intents) });
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => {
        server.server.onclose = () => resolve();
      });
      await server.connect(transport);
      const stop = () => void server.close();
      process.stdin.once('end', stop);
      process.stdin.once('close', stop);
      await closed;
    }));
};
