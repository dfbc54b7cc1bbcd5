/// The console's one stylesheet, served from the binary at `/console/console.css`.
///
/// From the binary, not a file beside it: the console then works wherever entitlementd runs,
/// on a private network without a CDN, and the Content-Security-Policy can allow styles from
/// this origin only (no inline styles, so no 'unsafe-inline').
enum ConsoleStylesheet {
    static let path = "/console/console.css"

    static let css = """
        :root { color-scheme: light; --ink: #1d2330; --muted: #5b6475; --line: #d5d9e0; --accent: #1f5fbf;
                --good: #1e7a3c; --bad: #a8321e; --panel: #f5f7fa; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); }
        header { display: flex; gap: 1.5rem; align-items: center; padding: .6rem 1.5rem;
                 border-bottom: 1px solid var(--line); background: var(--panel); }
        header .brand { font-weight: 700; color: var(--ink); text-decoration: none; }
        header nav { display: flex; gap: 1rem; flex: 1; }
        header form { display: flex; gap: .6rem; align-items: center; color: var(--muted); }
        main { padding: 1.2rem 1.5rem 3rem; max-width: 96rem; overflow-x: auto; }
        h1 { font-size: 1.5rem; margin: .2rem 0 1rem; overflow-wrap: anywhere; }
        h2 { font-size: 1.15rem; margin: 2rem 0 .6rem; }
        a { color: var(--accent); }
        table { border-collapse: collapse; width: 100%; margin: .4rem 0 1rem; }
        caption { text-align: left; font-weight: 700; font-size: 1.1rem; padding: .4rem 0; }
        th, td { text-align: left; vertical-align: top; padding: .35rem .6rem; border-bottom: 1px solid var(--line);
                 overflow-wrap: break-word; }
        th { background: var(--panel); font-weight: 600; white-space: nowrap; }
        td.time { white-space: nowrap; font-variant-numeric: tabular-nums; }
        td.why { color: var(--muted); font-size: .92em; min-width: 18rem; }
        form.inline { display: flex; gap: .4rem; align-items: center; }
        form.inline input { width: 10rem; }
        button { white-space: nowrap; }
        form.stacked { display: grid; grid-template-columns: 8rem minmax(12rem, 28rem); gap: .5rem 1rem;
                       align-items: center; }
        form.stacked button { grid-column: 2; justify-self: start; }
        input { font: inherit; padding: .3rem .45rem; border: 1px solid var(--line); border-radius: 4px; }
        button { font: inherit; padding: .3rem .9rem; border: 1px solid var(--accent); border-radius: 4px;
                 background: var(--accent); color: #fff; cursor: pointer; }
        header button { background: transparent; color: var(--accent); }
        .state-active, .state-grace_period { color: var(--good); font-weight: 600; }
        .state-expired, .state-revoked, .state-billing_retry { color: var(--bad); font-weight: 600; }
        .notice { padding: .6rem .9rem; border-left: 4px solid var(--good); background: var(--panel); }
        .error { padding: .6rem .9rem; border-left: 4px solid var(--bad); background: var(--panel); }
        .muted { color: var(--muted); }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
                           white-space: nowrap; }
        .sign-in { max-width: 26rem; margin: 4rem auto; }
        .search { display: flex; gap: .5rem; align-items: center; margin-bottom: 1rem; }
        .search input { width: 28rem; }
        """
}
