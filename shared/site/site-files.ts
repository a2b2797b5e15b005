/** The console's built files (`console/dist`, shipped beside the console function). */
export interface SiteFiles {
  /** The file at `relative` (`index.html`, `assets/main-….js`), or undefined: none there, or not a site file. */
  read(relative: string): Buffer | undefined;
}
