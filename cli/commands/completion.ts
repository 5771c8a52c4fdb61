/**
 * `fairway completion bash|zsh|fish`: a shell completion script for every command, its
 * aliases and options and the global options, generated from the command registry (each
 * module is loaded once here to read its options, so the script never drifts from --help).
 */
import { Argument, Command, type Option } from 'commander';
import type { CliContext, CommandModule } from '../context.ts';
import { UsageError } from '../output.ts';

/**
 * The command registry's loaders. cli/commands/index.ts hands them over when it loads this
 * module: importing the registry here would close an import circle with that lazy load.
 */
export type CommandRegistry = readonly { load(): Promise<CommandModule> }[];

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

interface Spec {
  name: string;
  aliases: string[];
  description: string;
  options: string[];
}

const silent: CliContext = { io: { out() {}, err() {} }, globals: () => ({}), action: () => async () => {} };

async function specs(registry: CommandRegistry): Promise<Spec[]> {
  const program = new Command('fairway');
  for (const entry of registry) (await entry.load())(program, silent);
  return program.commands.map((c) => ({
    name: c.name(),
    aliases: c.aliases(),
    description: (c.description().split(/(?<=\.)\s/)[0] ?? '').replace(/\.$/, ''),
    options: [...c.options.flatMap((o) => [o.short, o.long]).filter((f): f is string => f !== undefined), '--help'],
  }));
}

function flags(program: Command): { all: string[]; valued: string[] } {
  const opts: readonly Option[] = program.options;
  const all = [...opts.flatMap((o) => [o.short, o.long]).filter((f): f is string => f !== undefined), '--help'];
  const valued = opts.filter((o) => o.required || o.optional).flatMap((o) => [o.short, o.long]).filter((f): f is string => f !== undefined);
  return { all, valued };
}

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function bash(cmds: Spec[], g: { all: string[]; valued: string[] }): string {
  const cases = cmds.map((c) => `    ${[c.name, ...c.aliases].join('|')}) opts="$opts ${c.options.join(' ')}" ;;`).join('\n');
  return `# fairway bash completion: source it, or save it as ~/.local/share/bash-completion/completions/fairway
_fairway() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmd="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      ${g.valued.join('|')}) ((i++)) ;;
      -*) ;;
      *) cmd="\${COMP_WORDS[i]}"; break ;;
    esac
  done
  if [[ -z "$cmd" && "$cur" != -* ]]; then
    COMPREPLY=($(compgen -W "${cmds.flatMap((c) => [c.name, ...c.aliases]).join(' ')} help" -- "$cur"))
    return
  fi
  local opts="${g.all.join(' ')}"
  case "$cmd" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -o default -F _fairway fairway
`;
}

function zsh(cmds: Spec[], g: { all: string[]; valued: string[] }): string {
  const described = cmds.flatMap((c) => [c.name, ...c.aliases].map((n) => `    ${sq(`${n}:${c.description.replace(/:/g, '\\:')}`)}`)).join('\n');
  const cases = cmds.map((c) => `    (${[c.name, ...c.aliases].join('|')}) opts+=(${c.options.join(' ')}) ;;`).join('\n');
  return `#compdef fairway
# fairway zsh completion: save it as _fairway in a directory of $fpath, or source it after compinit
_fairway() {
  local -a cmds opts
  cmds=(
${described}
  )
  local cmd="" i
  for ((i = 2; i < CURRENT; i++)); do
    case "$words[i]" in
      (${g.valued.join('|')}) ((i++)) ;;
      (-*) ;;
      (*) cmd="$words[i]"; break ;;
    esac
  done
  opts=(${g.all.join(' ')})
  if [[ -z "$cmd" && "$PREFIX" != -* ]]; then
    _describe command cmds
    return
  fi
  case "$cmd" in
${cases}
  esac
  compadd -- $opts
}
if [[ "$funcstack[1]" == _fairway ]]; then _fairway "$@"; else compdef _fairway fairway; fi
`;
}

function fish(cmds: Spec[], g: { all: string[]; valued: string[] }): string {
  const flag = (f: string) => (f.startsWith('--') ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`);
  const lines = [
    '# fairway fish completion: save it as ~/.config/fish/completions/fairway.fish',
    'complete -c fairway -f',
    ...g.all.map((f) => `complete -c fairway ${flag(f)}${g.valued.includes(f) ? ' -r' : ''}`),
  ];
  for (const c of cmds) {
    for (const n of [c.name, ...c.aliases]) lines.push(`complete -c fairway -n __fish_use_subcommand -a ${n} -d ${sq(c.description)}`);
    const seen = [c.name, ...c.aliases].join(' ');
    for (const f of c.options) lines.push(`complete -c fairway -n ${sq(`__fish_seen_subcommand_from ${seen}`)} ${flag(f)}`);
  }
  return `${lines.join('\n')}\n`;
}

export async function completionScript(shell: Shell, program: Command, registry: CommandRegistry): Promise<string> {
  const cmds = await specs(registry);
  const g = flags(program);
  return shell === 'bash' ? bash(cmds, g) : shell === 'zsh' ? zsh(cmds, g) : fish(cmds, g);
}

export const completionCommand = (registry: CommandRegistry): CommandModule => (program, ctx) => {
  program.command('completion')
    .description('Print a shell completion script (bash, zsh or fish) for every command and option.')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .action(ctx.action(async (g, shell: Shell) => {
      if (g.json === true) throw new UsageError('completion prints a shell script and has no --json output', 'option_invalid');
      ctx.io.out(await completionScript(shell, program, registry));
    }));
};
