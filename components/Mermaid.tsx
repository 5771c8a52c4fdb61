'use client';
/**
 * Renders a Mermaid diagram to SVG in the browser with `securityLevel:
 * 'strict'` (docs/console.md "Safety"). Labels were escaped when the text was built; strict
 * mode also disables Mermaid's own click handlers, so node links are attached
 * here from a server-provided map of generated node ids to console paths.
 */
import { useRouter } from 'next/navigation';
import { useEffect, useId, useRef, useState } from 'react';

export interface MermaidNodeLink {
  id: string;
  href: string | null;
}

/** One empty list for every caller without links: a fresh `[]` per render would change the effect's inputs and draw again. */
const NO_LINKS: MermaidNodeLink[] = [];

let initialized: Promise<typeof import('mermaid').default> | null = null;

function loadMermaid() {
  initialized ??= import('mermaid').then((m) => {
    const mermaid = m.default;
    mermaid.initialize({
      startOnLoad: false,
      securityLevel: 'strict',
      theme: 'neutral',
      fontFamily: 'ui-sans-serif, system-ui, sans-serif',
      maxTextSize: 200_000,
      maxEdges: 1000,
      flowchart: { htmlLabels: false, curve: 'basis', useMaxWidth: true },
      sequence: { useMaxWidth: true, showSequenceNumbers: true },
    });
    return mermaid;
  });
  return initialized;
}

function nodeIdOf(element: Element): string | null {
  const m = /(?:^|-)flowchart-(n\d+)-\d+$/.exec(element.id);
  return m === null ? null : m[1]!;
}

export function Mermaid({ text, links = NO_LINKS, label, testId = 'mermaid' }: { text: string; links?: MermaidNodeLink[]; label: string; testId?: string }) {
  const host = useRef<HTMLDivElement>(null);
  const router = useRouter();
  const reactId = useId();
  const [state, setState] = useState<'rendering' | 'rendered' | 'failed'>('rendering');
  // The effect draws once per text and link content: a refresh that hands equal links in a new
  // array (live updates re-render the server page) must not draw again, and drawing again on each
  // render loops (setState re-renders) and races Mermaid's renders over the same element id.
  const linkKey = JSON.stringify(links);
  // How many times this diagram was drawn (`data-draws`: once per text and link content).
  const [draws, setDraws] = useState(0);

  useEffect(() => {
    let cancelled = false;
    const renderId = `m${reactId.replace(/[^A-Za-z0-9]/g, '')}`;
    setState('rendering');
    loadMermaid()
      .then((mermaid) => mermaid.render(renderId, text))
      .then(({ svg }) => {
        if (cancelled || host.current === null) return;
        host.current.innerHTML = svg; // Mermaid's own sanitized output (strict mode)
        const byId = new Map((JSON.parse(linkKey) as MermaidNodeLink[]).filter((l) => l.href !== null).map((l) => [l.id, l.href!]));
        for (const node of host.current.querySelectorAll('g.node')) {
          const id = nodeIdOf(node);
          const href = id === null ? undefined : byId.get(id);
          if (href === undefined) continue;
          node.setAttribute('role', 'link');
          node.setAttribute('tabindex', '0');
          const go = () => {
            if (href.startsWith('/')) router.push(href);
            else window.open(href, '_blank', 'noopener,noreferrer');
          };
          node.addEventListener('click', go);
          node.addEventListener('keydown', (e) => {
            if ((e as KeyboardEvent).key === 'Enter') go();
          });
        }
        setDraws((n) => n + 1);
        setState('rendered');
      })
      .catch(() => {
        if (!cancelled) setState('failed');
      });
    return () => {
      cancelled = true;
    };
  }, [text, linkKey, reactId, router]);

  return (
    <figure aria-label={label} className="w-full">
      <div ref={host} data-testid={testId} data-state={state} data-draws={draws} className="mermaid-host flex min-h-16 justify-center overflow-x-auto" />
      {state === 'rendering' && <p className="text-center text-xs muted">Rendering diagram…</p>}
      {state === 'failed' && <p role="alert" className="text-center text-sm text-red-700">The diagram could not be rendered; the table below lists the same nodes.</p>}
    </figure>
  );
}
