import { type JSX, render } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { createApi, type Api } from './api.ts';
import { EventCatalog } from './pages/event-catalog.tsx';
import { ProjectPicker } from './pages/projects.tsx';
import { ProjectSettings } from './pages/settings.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { match, navigate, useHashPath } from './router.ts';
import { dropRecentProjects, loadAdminKey, saveAdminKey } from './session.ts';
import './styles.css';

function App() {
  const [adminKey, setAdminKey] = useState<string | null>(loadAdminKey());
  const path = useHashPath();
  const signOut = () => {
    saveAdminKey(null);
    setAdminKey(null);
  };
  const api: Api | undefined = useMemo(() => (adminKey ? createApi(adminKey, signOut) : undefined), [adminKey]);

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
  }, [path, adminKey]);

  useEffect(() => {
    performance.mark('console:interactive');
  }, []);

  let screen: JSX.Element;
  if (!api) {
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
        {api ? (
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
        {screen}
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
