// Preloaded (node --import) into a replica that must run with a wall clock off by CLOCK_SKEW_MS (#23: replicas with
// skewed clocks). Date.now() and `new Date()` move; performance.now() (monotonic) does not, as on a host whose NTP
// drifted. Test-only: nothing in the platform loads it.
const skew = Number(process.env.CLOCK_SKEW_MS ?? 0);
if (skew) {
  const RealDate = globalThis.Date;
  const realNow = RealDate.now.bind(RealDate);
  class SkewedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(realNow() + skew);
      else super(...args);
    }
    static now() {
      return realNow() + skew;
    }
  }
  globalThis.Date = SkewedDate;
}
