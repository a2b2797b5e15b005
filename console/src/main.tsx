import { type JSX, render } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { RoleContext } from './access.tsx';
import { createApi, type Api, openPortal, type PortalSession } from './api.ts';
import { EventCatalog } from './pages/event-catalog.tsx';
import { ProjectPicker } from './pages/projects.tsx';
import { ProjectSettings } from './pages/settings.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { match, navigate, useHashPath } from './router.ts';
import { dropRecentProjects, loadAdminKey, saveAdminKey } from './session.ts';
import './styles.css';

/**
 * A portal link opens the console at `/portal?project=…#code=…`: the code is traded for a session once, then the
 * fragment becomes the console's own route. The page then shows that one project, no picker, no sign-in.
 */
const PORTAL = window.location.pathname.replace(/\/+$/, '').endsWith('/portal');

function App() {
  const [adminKey, setAdminKey] = useState<string | null>(PORTAL ? null : loadAdminKey());
  const [portal, setPortal] = useState<PortalSession | 'opening' | 'closed'>(PORTAL ? 'opening' : 'closed');
  const path = useHashPath();
  const signOut = () => {
    saveAdminKey(null);
    setAdminKey(null);
    if (PORTAL) setPortal('closed');
  };
  const session = typeof portal === 'object' ? portal : undefined;
  const api: Api | undefined = useMemo(
    () =>
      session
        ? createApi({ csrfToken: session.csrfToken }, signOut)
        : adminKey
          ? createApi(adminKey, signOut)
          : undefined,
    [adminKey, session],
  );

  useEffect(() => {
    if (!PORTAL) return;
    const code = /^#code=([A-Za-z0-9_-]+)$/.exec(window.location.hash)?.[1];
    const projectId = new URLSearchParams(window.location.search).get('project') ?? undefined;
    // The code leaves the address bar at once: it is spent either way, and must not stay in history.
    if (code) history.replaceState(null, '', `${window.location.pathname}${window.location.search}#/`);
    void openPortal(code, projectId).then((opened) => {
      setPortal(opened ?? 'closed');
      if (opened && !window.location.hash.startsWith(`#/projects/${opened.projectId}`)) {
        navigate(`/projects/${encodeURIComponent(opened.projectId)}/integrations`);
      }
    });
  }, []);

  // Move focus to the new screen's heading so keyboard and screen-reader users land on it. A screen that loads its
  // data first renders its heading later (or renders it again), so the heading also takes the focus whenever focus
  // has fallen back to the page itself; a control the user focused keeps it.
  const main = useRef<HTMLElement>(null);
  useEffect(() => {
    const container = main.current;
    if (!container) return;
    const focusHeading = () => {
      const heading = container.querySelector('h1');
      if (!heading) return false;
      if (document.activeElement !== heading) {
        heading.setAttribute('tabindex', '-1');
        heading.focus({ preventScroll: true });
      }
      return true;
    };
    focusHeading();
    const observer = new MutationObserver(() => {
      if (!document.activeElement || document.activeElement === document.body) focusHeading();
    });
    observer.observe(container, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [path, adminKey, portal]);

  useEffect(() => {
    performance.mark('console:interactive');
  }, []);

  let screen: JSX.Element;
  if (PORTAL && !session) {
    screen =
      portal === 'opening' ? (
        <p class="muted" role="status">
          Opening…
        </p>
      ) : (
        <section>
          <h1>This link has expired</h1>
          <p>Portal links open once and for a limited time. Ask for a new link where you got this one.</p>
        </section>
      );
  } else if (session && api) {
    // A portal session: its one project, whatever the address says.
    screen = match('/event-catalog', path) ? (
      <EventCatalog />
    ) : (
      <ProjectSettings api={api} projectId={session.projectId} path={path} />
    );
  } else if (!api) {
    screen = (
      <SignIn
        onSignedIn={(key) => {
          saveAdminKey(key);
          setAdminKey(key);
        }}
      />
    );
  } else {
    const project = match('/projects/:projectId', path) ?? matchPrefix(path);
    screen = match('/event-catalog', path) ? (
      <EventCatalog />
    ) : project ? (
      <ProjectSettings api={api} projectId={project.projectId!} path={path} />
    ) : (
      <ProjectPicker api={api} />
    );
  }

  return (
    <>
      {/* A button, not an anchor: the console routes on the URL's hash, so "#main" would navigate away. */}
      <button type="button" class="skip" onClick={() => main.current?.querySelector('h1')?.focus()}>
        Skip to content
      </button>
      <header class="topbar">
        <a class="brand" href="#/">
          Switchboard
        </a>
        {session ? (
          <nav aria-label="Account" class="topbar-actions">
            <span class="muted small" data-role>
              {session.role}
            </span>
            <a href="#/event-catalog">Event catalog</a>
          </nav>
        ) : api ? (
          <nav aria-label="Account" class="topbar-actions">
            <a href="#/">Projects</a>
            <a href="#/event-catalog">Event catalog</a>
            <a href="../docs" class="hide-narrow">
              API reference
            </a>
            <button
              type="button"
              class="link"
              onClick={() => {
                signOut();
                navigate('/');
              }}
            >
              Sign out
            </button>
          </nav>
        ) : null}
      </header>
      <main id="main" ref={main}>
        <RoleContext.Provider value={session?.role ?? 'operator'}>{screen}</RoleContext.Provider>
      </main>
    </>
  );
}

function matchPrefix(path: string): Record<string, string> | undefined {
  const m = /^\/projects\/([^/]+)\//.exec(path);
  return m ? { projectId: decodeURIComponent(m[1]!) } : undefined;
}

dropRecentProjects();
render(<App />, document.getElementById('app')!);
