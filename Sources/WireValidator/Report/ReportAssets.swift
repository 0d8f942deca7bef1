/// The style and script of the HTML report, inlined into the page (nothing is fetched).
enum ReportAssets {
    static let css = """
        :root { --error: #b3261e; --warning: #8a5a00; --muted: #666; --line: #ddd; --band: #f6f6f4; }
        * { box-sizing: border-box; }
        body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1b1b1b; }
        body { margin: 0 auto; max-width: 1400px; padding: 0 1rem 4rem; }
        header h1 { font-size: 1.3rem; margin: 1rem 0 0; word-break: break-all; }
        .spec, .where, .muted { color: var(--muted); }
        h2 { font-size: 1.1rem; margin: 1.2rem 0 .4rem; }
        .tables { display: flex; flex-wrap: wrap; gap: 1.5rem; align-items: flex-start; }
        table.counts { border-collapse: collapse; }
        table.counts caption { text-align: left; font-weight: 600; }
        table.counts td { padding: .1rem .6rem .1rem 0; border-bottom: 1px solid var(--line); }
        td.n { text-align: right; font-variant-numeric: tabular-nums; }
        nav#controls { position: sticky; top: 0; background: #fff; padding: .5rem 0; border-bottom: 1px solid var(--line); z-index: 2;
          display: flex; flex-wrap: wrap; gap: .6rem; align-items: center; }
        #findings ol { padding-left: 1.5rem; }
        #findings li { margin: .15rem 0; }
        .error .severity, li.error .severity { color: var(--error); font-weight: 600; }
        .warning .severity, li.warning .severity { color: var(--warning); font-weight: 600; }
        code { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
        details.session { border: 1px solid var(--line); border-radius: 6px; margin: .6rem 0; }
        details.session > summary { padding: .4rem .6rem; cursor: pointer; font-weight: 600; background: var(--band); }
        details.session.has-errors > summary { color: var(--error); }
        .scroll { overflow-x: auto; }
        table.timeline { border-collapse: collapse; width: 100%; }
        table.timeline th { text-align: left; font-weight: 600; color: var(--muted); border-bottom: 1px solid var(--line); padding: .2rem .4rem; }
        table.timeline td { padding: .15rem .4rem; vertical-align: top; border-bottom: 1px solid #f0f0f0; }
        table.timeline td.fields { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; word-break: break-all; }
        tr.frame { cursor: pointer; }
        tr.frame:hover { background: #fafafa; }
        tr.frame.error { background: #fdecea; }
        tr.frame.warning { background: #fff6e0; }
        tr.frame.current { outline: 2px solid var(--error); }
        tr.snapshot { display: none; }
        tr.snapshot.shown { display: table-row; color: var(--muted); }
        tr.notes td { padding-left: 2.5rem; }
        tr.json pre { margin: 0; white-space: pre-wrap; word-break: break-all; font: 12px/1.4 ui-monospace, Menlo, Consolas, monospace; }
        td.dir-client::before { content: "→ "; }
        td.dir-server::before { content: "← "; }
        td.phase.changed { font-weight: 600; }
        td.phase:not(.changed) { color: #aaa; }
        .answers { color: var(--muted); margin-left: .4rem; }
        button.stream { font-size: 12px; margin-left: .4rem; }
        .hidden { display: none !important; }
        @media (max-width: 700px) {
          body { padding: 0 .5rem 3rem; }
          th.time, td.time, th.phase, td.phase { display: none; }
        }

        """

    static let script = """
        (function () {
          "use strict";
          var data = JSON.parse(document.getElementById("report-data").textContent);
          var main = document.getElementById("sessions");
          var drawn = [];
          var errors = [];
          var at = -1;
          var filters = { session: "", direction: "", type: "" };
          function el(tag, cls, text) {
            var node = document.createElement(tag);
            if (cls) node.className = cls;
            if (text !== undefined) node.textContent = text;
            return node;
          }
          function noteText(note) {
            return note.severity + " " + note.rule + " [" + note.code + "]" + (note.path ? " " + note.path : "") + ": " + note.message +
              (note.where ? " (" + note.where + ")" : "");
          }
          data.forEach(function (session, n) {
            var details = el("details", "session" + (session.errors ? " has-errors" : ""));
            details.id = "s-" + n;
            details.dataset.id = session.id;
            details.appendChild(el("summary", null, session.id + " \\u2014 " + session.frames.length + " frames" +
              (session.errors ? ", " + session.errors + " errors" : "") + " (" + session.file + ")"));
            details.addEventListener("toggle", function () { if (details.open) draw(n); });
            main.appendChild(details);
            session.frames.forEach(function (frame) {
              if (frame.n && frame.n.some(function (note) { return note.severity === "error"; })) errors.push([n, frame.i]);
            });
            if (session.errors) { details.open = true; draw(n); }
          });
          function draw(n) {
            if (drawn[n]) return;
            drawn[n] = true;
            var session = data[n];
            var details = document.getElementById("s-" + n);
            var snapshots = {};
            session.frames.forEach(function (frame) { if (frame.f) snapshots[frame.f] = (snapshots[frame.f] || 0) + 1; });
            var wrap = el("div", "scroll");
            var table = el("table", "timeline");
            var head = el("tr");
            [["#", ""], ["time", "time"], ["dir", ""], ["type", ""], ["phase", "phase"], ["fields and findings", ""]].forEach(function (h) {
              head.appendChild(el("th", h[1], h[0]));
            });
            var thead = el("thead");
            thead.appendChild(head);
            table.appendChild(thead);
            var body = el("tbody");
            session.notes.forEach(function (note) {
              var row = el("tr", "notes " + note.severity);
              var cell = el("td", null, "session: " + noteText(note));
              cell.colSpan = 6;
              row.appendChild(cell);
              body.appendChild(row);
            });
            var lastPhase;
            session.frames.forEach(function (frame) {
              var row = el("tr", "frame");
              row.id = "f-" + n + "-" + frame.i;
              row.dataset.dir = frame.d || "";
              row.dataset.type = frame.y || "";
              if (frame.n) row.classList.add(frame.n.some(function (x) { return x.severity === "error"; }) ? "error" : "warning");
              if (frame.f) { row.classList.add("snapshot"); row.dataset.final = frame.f; }
              row.appendChild(el("td", "index", String(frame.i)));
              row.appendChild(el("td", "time", frame.t === undefined ? "" : (frame.t / 1000).toFixed(3) + " s"));
              row.appendChild(el("td", "dir dir-" + (frame.d || "unknown"), frame.d || "?"));
              row.appendChild(el("td", "type", frame.y || "(no type)"));
              var changed = frame.p !== lastPhase;
              lastPhase = frame.p;
              row.appendChild(el("td", "phase" + (changed ? " changed" : ""), frame.p || ""));
              var fields = el("td", "fields", frame.s);
              if (frame.a) {
                var link = el("a", "answers", "answers #" + frame.a);
                link.href = "#f-" + n + "-" + frame.a;
                fields.appendChild(link);
              }
              if (snapshots[frame.i] && !frame.f) {
                var button = el("button", "stream", snapshots[frame.i] + " snapshots");
                button.type = "button";
                button.addEventListener("click", function () {
                  body.querySelectorAll('tr.snapshot[data-final="' + frame.i + '"]').forEach(function (r) { r.classList.toggle("shown"); });
                });
                fields.appendChild(button);
              }
              (frame.n || []).forEach(function (note) {
                var line = el("div", note.severity);
                line.appendChild(el("span", "severity", note.severity));
                line.appendChild(document.createTextNode(" " + note.rule + " "));
                line.appendChild(el("code", "code", note.code));
                if (note.path) { line.appendChild(document.createTextNode(" ")); line.appendChild(el("code", "path", note.path)); }
                line.appendChild(document.createTextNode(" " + note.message + " "));
                if (note.where) line.appendChild(el("span", "where", note.where));
                fields.appendChild(line);
              });
              row.appendChild(fields);
              row.addEventListener("click", function (event) {
                if (event.target.tagName === "A" || event.target.tagName === "BUTTON") return;
                var next = row.nextSibling;
                if (next && next.classList.contains("json")) { next.remove(); return; }
                var json = el("tr", "json");
                var cell = el("td");
                cell.colSpan = 6;
                var text;
                try { text = JSON.stringify(JSON.parse(frame.j), null, 2); } catch (e) { text = frame.j; }
                cell.appendChild(el("pre", null, text));
                json.appendChild(cell);
                row.parentNode.insertBefore(json, row.nextSibling);
              });
              body.appendChild(row);
            });
            table.appendChild(body);
            wrap.appendChild(table);
            details.appendChild(wrap);
            apply();
          }
          function show(n, i) {
            var details = document.getElementById("s-" + n);
            details.classList.remove("hidden");
            details.open = true;
            draw(n);
            var row = document.getElementById("f-" + n + "-" + i);
            if (!row) return;
            if (row.classList.contains("snapshot")) row.classList.add("shown");
            document.querySelectorAll("tr.current").forEach(function (r) { r.classList.remove("current"); });
            row.classList.add("current");
            row.scrollIntoView({ block: "center" });
          }
          document.getElementById("next-error").addEventListener("click", function () {
            if (!errors.length) { document.getElementById("position").textContent = "no errors"; return; }
            at = (at + 1) % errors.length;
            show(errors[at][0], errors[at][1]);
            document.getElementById("position").textContent = "error " + (at + 1) + " of " + errors.length;
          });
          document.querySelectorAll("#findings a[data-session]").forEach(function (a) {
            a.addEventListener("click", function (event) {
              event.preventDefault();
              show(Number(a.dataset.session), Number(a.dataset.frame));
            });
          });
          document.addEventListener("click", function (event) {
            var a = event.target;
            if (a.tagName !== "A" || !a.classList.contains("answers")) return;
            event.preventDefault();
            var parts = a.getAttribute("href").split("-");
            show(Number(parts[1]), Number(parts[2]));
          });
          function apply() {
            data.forEach(function (session, n) {
              var details = document.getElementById("s-" + n);
              if (!details) return;
              details.classList.toggle("hidden", filters.session !== "" && session.id.indexOf(filters.session) < 0);
              if (!drawn[n]) return;
              details.querySelectorAll("tr.frame").forEach(function (row) {
                var hide = (filters.direction && row.dataset.dir !== filters.direction) || (filters.type && row.dataset.type !== filters.type);
                row.classList.toggle("hidden", !!hide);
              });
            });
          }
          [["filter-session", "session", "input"], ["filter-direction", "direction", "change"], ["filter-type", "type", "change"]]
            .forEach(function (f) {
              var input = document.getElementById(f[0]);
              input.addEventListener(f[2], function () { filters[f[1]] = input.value; apply(); });
            });
        })();

        """
}
