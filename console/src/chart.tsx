import { useEffect, useId, useRef, useState } from 'preact/hooks';

/** One series of a stacked bar chart: its name, its CSS class (colour) and a value per bar. */
export interface Series {
  name: string;
  tone: 'ok' | 'bad' | 'accent';
  values: number[];
}

const HEIGHT = 200;
const PAD = { top: 12, right: 8, bottom: 28, left: 40 };

/** A round axis maximum (1, 2 or 5 × a power of ten) at or above `max`. */
function niceMax(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

/**
 * A stacked bar chart drawn as SVG by hand (no charting library: this is smaller than any). Accessible: the SVG is
 * an image named by its title with a short description, and the same numbers follow as a table (the text
 * alternative, also what a test reads), collapsed under "Show the numbers".
 */
export function StackedBars(props: {
  title: string;
  description: string;
  labels: string[];
  series: Series[];
  /** Every n-th label is printed under its bar (all are in the table). */
  labelEvery?: number;
  /** Extra columns in the table only (e.g. a median), one value per bar. */
  extraColumns?: { name: string; values: string[] }[];
  testId?: string;
}) {
  const id = useId();
  // The drawing is as wide as its box in CSS pixels (read on resize), so text is never stretched or squeezed.
  const figure = useRef<HTMLElement>(null);
  const [width, setWidth] = useState(720);
  useEffect(() => {
    const box = figure.current;
    if (!box || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => setWidth(Math.max(200, Math.round(box.clientWidth))));
    observer.observe(box);
    return () => observer.disconnect();
  }, []);
  const totals = props.labels.map((_, i) => props.series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const top = niceMax(Math.max(0, ...totals));
  const plotW = width - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, props.labels.length);
  const barW = Math.max(2, slot * 0.7);
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;
  // At least ~56 px per printed label, so they never overlap on a narrow screen.
  const every = Math.max(props.labelEvery ?? 1, Math.ceil(56 / slot));
  return (
    <figure class="chart" data-testid={props.testId} ref={figure}>
      <svg viewBox={`0 0 ${width} ${HEIGHT}`} role="img" aria-labelledby={`${id}-t ${id}-d`}>
        <title id={`${id}-t`}>{props.title}</title>
        <desc id={`${id}-d`}>{props.description}</desc>
        {[0, top / 2, top].filter(Number.isInteger).map((tick) => (
          <g key={tick} class="chart-grid">
            <line x1={PAD.left} x2={width - PAD.right} y1={y(tick)} y2={y(tick)} />
            <text x={PAD.left - 6} y={y(tick) + 4} text-anchor="end">
              {tick}
            </text>
          </g>
        ))}
        {props.labels.map((label, i) => {
          let base = 0;
          const x = PAD.left + i * slot + (slot - barW) / 2;
          return (
            <g key={label}>
              {props.series.map((s) => {
                const v = s.values[i] ?? 0;
                const from = base;
                base += v;
                return v > 0 ? (
                  <rect
                    key={s.name}
                    class={`chart-${s.tone}`}
                    x={x}
                    y={y(from + v)}
                    width={barW}
                    height={y(from) - y(from + v)}
                  />
                ) : null;
              })}
              {i % every === 0 ? (
                <text class="chart-label" x={x + barW / 2} y={HEIGHT - 8} text-anchor="middle">
                  {label}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <ul class="chart-legend">
          {props.series.map((s) => (
            <li key={s.name}>
              <span class={`chart-swatch chart-${s.tone}`} aria-hidden="true" /> {s.name}
            </li>
          ))}
        </ul>
        <details>
          <summary>Show the numbers</summary>
          <table class="chart-table">
            <caption class="visually-hidden">{props.title}</caption>
            <thead>
              <tr>
                <th scope="col">{''}</th>
                {props.series.map((s) => (
                  <th scope="col" key={s.name}>
                    {s.name}
                  </th>
                ))}
                {props.extraColumns?.map((c) => (
                  <th scope="col" key={c.name}>
                    {c.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {props.labels.map((label, i) => (
                <tr key={label}>
                  <th scope="row">{label}</th>
                  {props.series.map((s) => (
                    <td key={s.name} data-series={s.name}>
                      {s.values[i] ?? 0}
                    </td>
                  ))}
                  {props.extraColumns?.map((c) => (
                    <td key={c.name}>{c.values[i]}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      </figcaption>
    </figure>
  );
}
