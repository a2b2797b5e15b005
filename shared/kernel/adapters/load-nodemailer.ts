/*
 * Its own module, apart from ./smtp-transport.ts: esbuild makes a chunk of every `import()` it sees in a bundle's
 * modules, used or not, so the SMTP options' helpers can be imported (a webhooks face reaches them) without putting
 * nodemailer's chunk in every function that imports them.
 */
let nodemailer: Promise<typeof import('nodemailer')> | undefined;

/** nodemailer, loaded with the first mail rather than at cold start (most functions never send one). */
export function loadNodemailer(): Promise<typeof import('nodemailer')> {
  nodemailer ??= import('nodemailer');
  return nodemailer;
}
