// feather report pages: renders the embedded records on demand. Every
// value from the data goes through textContent, never innerHTML, so no
// response text can become markup.
(function () {
  'use strict';
  var node = document.getElementById('feather-data');
  if (!node) return;

  // el builds an element; children are nodes or strings (as text).
  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) {
      for (var k in attrs) {
        if (attrs[k] === null || attrs[k] === undefined || attrs[k] === false) continue;
        if (k === 'class') e.className = attrs[k];
        else e.setAttribute(k, attrs[k]);
      }
    }
    (children || []).forEach(function (c) {
      if (c === null || c === undefined) return;
      e.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
    });
    return e;
  }
  function fields(names) {
    var f = {};
    names.forEach(function (n, i) { f[n] = i; });
    return f;
  }
  function pct(x) { return (100 * x).toFixed(0) + '%'; }
  function secs(x) { return x === null || x === undefined ? '—' : x.toFixed(2) + ' s'; }
  function usd(x) {
    if (x === null || x === undefined) return '—';
    return '$' + (x !== 0 && x < 0.01 ? x.toFixed(6) : x.toFixed(4));
  }
  function badge(kind, text) { return el('span', { class: 'badge b-' + kind }, [text]); }
  function pre(text, cls) { return el('pre', { class: cls || 'text' }, [text]); }
  function clip(s, n) {
    s = (s || '').replace(/\s+/g, ' ').trim();
    return s.length > n ? s.slice(0, n - 1) + '…' : s;
  }
  function fixed(x, d) { return x === null || x === undefined ? '—' : x.toFixed(d); }

  // The page's state lives in the address (#f=fails&q=paris), so every
  // view is a link: params reads it, setParams writes it without adding
  // to the history.
  function params() {
    var out = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
      if (!kv) return;
      var i = kv.indexOf('=');
      try {
        out[decodeURIComponent(i < 0 ? kv : kv.slice(0, i))] = i < 0 ? '' : decodeURIComponent(kv.slice(i + 1));
      } catch (e) { /* a hand-edited address: ignore the pair */ }
    });
    return out;
  }
  function hashOf(p) {
    var parts = [];
    Object.keys(p).forEach(function (k) {
      if (p[k] !== '' && p[k] !== null && p[k] !== undefined) parts.push(encodeURIComponent(k) + '=' + encodeURIComponent(p[k]));
    });
    return parts.length ? '#' + parts.join('&') : '';
  }
  function setParams(p) {
    var h = hashOf(p);
    if (h !== location.hash && !(h === '' && location.hash === '')) history.replaceState(null, '', h || location.pathname + location.search);
  }

  // list wires a filtered, searchable, paginated table: only the rows of
  // the current page are ever in the DOM.
  function list(opt) {
    var rows = document.getElementById('rows');
    var count = document.getElementById('count');
    var more = document.getElementById('more');
    var search = document.getElementById('search');
    var model = document.getElementById('model');
    var buttons = Array.prototype.slice.call(document.querySelectorAll('#controls button[data-filter]'));
    var filter = 'all';
    var lower = null;
    var matches = [];
    var shown = 0;
    var state = {};
    var pageSize = opt.pageSize || 200;

    // A link with #f=, #q= and #m= opens on that filter, search and model.
    function fromHash() {
      var p = params();
      filter = p.f && opt.filters[p.f] ? p.f : 'all';
      if (search) search.value = p.q || '';
      if (model) model.value = p.m && model.querySelector('option[value="' + CSS.escape(p.m) + '"]') ? p.m : '';
      buttons.forEach(function (o) { o.setAttribute('aria-pressed', String(o.getAttribute('data-filter') === filter)); });
    }
    fromHash();
    window.addEventListener('hashchange', function () { fromHash(); apply(); });

    function apply() {
      var q = search ? search.value.trim().toLowerCase() : '';
      var m = model ? model.value : '';
      setParams({ f: filter === 'all' ? '' : filter, q: search ? search.value.trim() : '', m: m });
      if (q && !lower) {
        lower = new Array(opt.n);
        for (var i = 0; i < opt.n; i++) lower[i] = opt.text(i).toLowerCase();
      }
      var pred = opt.filters[filter];
      matches = [];
      for (var j = 0; j < opt.n; j++) {
        if (m !== '' && String(opt.model(j)) !== m) continue;
        if (!pred(j)) continue;
        if (q && lower[j].indexOf(q) < 0) continue;
        matches.push(j);
      }
      rows.textContent = '';
      shown = 0;
      state = {};
      page();
    }
    function page() {
      var frag = document.createDocumentFragment();
      var end = Math.min(shown + pageSize, matches.length);
      for (var i = shown; i < end; i++) {
        opt.render(matches[i], state).forEach(function (r) { frag.appendChild(r); });
      }
      rows.appendChild(frag);
      shown = end;
      count.textContent = 'Showing ' + shown + ' of ' + matches.length + ' matching ' + opt.noun + ' (' + opt.n + ' in all)';
      more.hidden = shown >= matches.length;
      more.textContent = 'Show ' + Math.min(pageSize, matches.length - shown) + ' more';
    }
    buttons.forEach(function (b) {
      b.addEventListener('click', function () {
        filter = b.getAttribute('data-filter');
        buttons.forEach(function (o) { o.setAttribute('aria-pressed', String(o === b)); });
        apply();
      });
    });
    var timer = null;
    if (search) {
      search.addEventListener('input', function () {
        clearTimeout(timer);
        timer = setTimeout(apply, 120);
      });
      search.addEventListener('keydown', function (e) {
        if (e.key === 'Enter') { clearTimeout(timer); apply(); }
      });
    }
    if (model) model.addEventListener('change', apply);
    more.addEventListener('click', page);
    rows.addEventListener('click', function (e) {
      var tr = e.target.closest('tr[data-i]');
      if (!tr || e.target.closest('a, details, summary, pre')) return;
      var next = tr.nextElementSibling;
      if (next && next.classList.contains('detail')) {
        next.remove();
        tr.setAttribute('aria-expanded', 'false');
        return;
      }
      var d = el('tr', { class: 'detail' }, [el('td', { colspan: opt.columns }, [opt.detail(+tr.getAttribute('data-i'))])]);
      tr.after(d);
      tr.setAttribute('aria-expanded', 'true');
    });
    apply();
  }

  function rubricTable(grid) {
    var t = el('table', { class: 'grid' }, [el('thead', null, [el('tr', null, [el('th', null, ['judge']), el('th', null, ['score']), el('th', null, ['rationale'])])])]);
    var tb = el('tbody');
    grid.forEach(function (s) {
      var judge = s.judge + (s.self ? ' (own answer: not in the mean)' : '');
      var score = s.score === null || s.score === undefined ? badge('error', 'judge error') : String(s.score) + ' / 10';
      tb.appendChild(el('tr', null, [el('td', null, [judge]), el('td', null, [score]), el('td', null, [s.error ? s.error : (s.rationale || '')])]));
    });
    t.appendChild(tb);
    return t;
  }

  function kv(pairs) {
    var dl = el('dl', { class: 'kv' });
    pairs.forEach(function (p) {
      if (p[1] === null || p[1] === undefined || p[1] === '') return;
      dl.appendChild(el('dt', null, [p[0]]));
      dl.appendChild(el('dd', null, [typeof p[1] === 'object' && p[1].nodeType ? p[1] : String(p[1])]));
    });
    return dl;
  }

  var kinds = {};

  kinds.featherbench = function (d) {
    var F = fields(d.fields), T = d.trials;
    var status = { pass: ['pass', 'PASS'], fail: ['fail', 'FAIL'], error: ['error', 'ERROR'], unscored: ['unscored', 'UNSCORED'] };
    list({
      n: T.length, noun: 'trials', columns: 8,
      filters: {
        all: function () { return true; },
        notpassed: function (i) { return T[i][F.status] !== 'pass'; },
        fail: function (i) { return T[i][F.status] === 'fail'; },
        disagree: function (i) { return T[i][F.disagree] === true; },
        refused: function (i) { return T[i][F.refusal] === true; },
        error: function (i) { return T[i][F.status] === 'error'; }
      },
      model: function (i) { return T[i][F.model]; },
      text: function (i) {
        var t = T[i];
        return d.tasks[t[F.task]].id + '\n' + (t[F.text] || '') + '\n' + (t[F.tool_calls] ? JSON.stringify(t[F.tool_calls]) : '');
      },
      render: function (i, st) {
        var t = T[i], out = [];
        if (st.task !== t[F.task]) {
          st.task = t[F.task];
          var task = d.tasks[t[F.task]];
          var head = [el('strong', null, [task.id]), ' ', el('span', { class: 'tag' }, [task.category]), ' ',
            el('span', { class: 'muted' }, [task.summary])];
          if (task.changed) head.push(' ', badge('error', 'task file changed since this run'));
          if (task.prompt) head.push(el('details', null, [el('summary', null, ['prompt']), pre(task.prompt)]));
          out.push(el('tr', { class: 'task' }, [el('td', { colspan: 8 }, head)]));
        }
        var s = status[t[F.status]];
        var badges = el('td', { class: 'badges' }, [badge(s[0], s[1])]);
        if (t[F.refusal]) badges.appendChild(badge('refused', 'REFUSED'));
        var who = el('td', { class: 'who' }, [d.models[t[F.model]]]);
        if (d.runs.length > 1) who.appendChild(el('span', { class: 'muted run' }, [d.runs[t[F.run]]]));
        out.push(el('tr', { class: 'trial', 'data-i': i, tabindex: 0, 'aria-expanded': 'false' }, [
          who,
          el('td', { class: 'num' }, ['#' + t[F.trial]]),
          badges,
          el('td', { class: 'num' }, [t[F.rubric_mean] === null ? '—' : t[F.rubric_mean].toFixed(1) + '/10']),
          el('td', { class: 'num' }, [usd(t[F.cost_usd])]),
          el('td', { class: 'num' }, [secs(t[F.latency_s])]),
          el('td', { class: 'num' }, [secs(t[F.wall_clock_s])]),
          el('td', { class: 'snippet' }, [t[F.error] ? clip(t[F.error], 100) : clip(t[F.text], 100) || (t[F.tool_calls] && t[F.tool_calls].length ? '(tool calls only)' : '(empty)')])
        ]));
        return out;
      },
      detail: function (i) {
        var t = T[i], box = el('div', { class: 'detail-box' });
        if (t[F.error]) box.appendChild(el('section', null, [el('h4', null, ['Error']), pre(t[F.error], 'text error')]));
        if (t[F.check_detail]) box.appendChild(el('section', null, [el('h4', null, ['Checker']), pre(t[F.check_detail])]));
        var calls = t[F.tool_calls] || [];
        if (calls.length) {
          var ul = el('ul', { class: 'calls' });
          calls.forEach(function (c) {
            var args = c.args ? JSON.stringify(c.args, null, 2) : (c.raw_args || '');
            ul.appendChild(el('li', null, [el('code', null, [c.name]), pre(args)]));
          });
          box.appendChild(el('section', null, [el('h4', null, ['Tool calls']), ul]));
        }
        if (t[F.rubric] && t[F.rubric].length) box.appendChild(el('section', null, [el('h4', null, ['Rubric']), rubricTable(t[F.rubric])]));
        box.appendChild(el('section', null, [el('h4', null, ['Response']), pre(t[F.text] || '(empty)')]));
        box.appendChild(kv([
          ['stop reason', t[F.stop_reason]], ['refusal category', t[F.refusal_category]],
          ['input tokens', t[F.input_tokens]], ['output tokens', t[F.output_tokens]],
          ['sampling sent', t[F.sampling_sent] ? JSON.stringify(t[F.sampling_sent]) : null],
          ['started', t[F.timestamp]], ['run', d.runs[t[F.run]]], ['task hash', t[F.task_hash]]
        ]));
        return box;
      }
    });
    costBar(d);
  };

  // costBar highlights, on the cost/pass-rate chart and in the model
  // table, the cheapest model whose pass rate clears the chosen bar.
  function costBar(d) {
    var bar = document.getElementById('bar');
    if (!bar) return;
    var lowerBox = document.getElementById('bar-lower');
    var value = document.getElementById('bar-value');
    var result = document.getElementById('bar-result');
    var line = document.getElementById('bar-line');
    var points = Array.prototype.slice.call(document.querySelectorAll('g.point[data-model]'));
    function update() {
      var v = +bar.value / 100, best = null;
      value.textContent = bar.value + '%';
      points.forEach(function (p) {
        var rate = +p.getAttribute('data-rate'), lo = +p.getAttribute('data-lo');
        var ok = (lowerBox.checked ? lo : rate) >= v - 1e-9;
        p.classList.toggle('cleared', ok);
        p.classList.remove('cheapest');
        if (!ok) return;
        if (!best) { best = p; return; }
        var c = +p.getAttribute('data-cost'), bc = +best.getAttribute('data-cost');
        if (c < bc || (c === bc && rate > +best.getAttribute('data-rate'))) best = p;
      });
      document.querySelectorAll('tr[data-model]').forEach(function (tr) {
        tr.classList.toggle('cheapest', !!best && tr.getAttribute('data-model') === best.getAttribute('data-model'));
      });
      if (best) {
        best.classList.add('cheapest');
        result.textContent = 'Cheapest model clearing ' + bar.value + '%: ' + best.getAttribute('data-model') +
          ' (pass rate ' + pct(+best.getAttribute('data-rate')) + ', 95% CI ' + pct(+best.getAttribute('data-lo')) + '–' +
          pct(+best.getAttribute('data-hi')) + '; ' + usd(+best.getAttribute('data-cost')) + ' per task)';
      } else {
        result.textContent = 'No model with a reported cost clears ' + bar.value + '%' + (lowerBox.checked ? ' with its 95% lower bound' : '') + '.';
      }
      if (line) {
        var top = +line.getAttribute('data-top'), bottom = +line.getAttribute('data-bottom');
        var y = String(bottom - (bottom - top) * v);
        line.setAttribute('y1', y);
        line.setAttribute('y2', y);
      }
    }
    bar.addEventListener('input', update);
    lowerBox.addEventListener('change', update);
    update();
  }

  kinds.featherweight = function (d) {
    var C = fields(d.cell_fields), cols = d.columns;
    var names = { correct: 'correct', wrong: 'wrong', parse: 'parse error', error: 'error' };
    var detail = document.getElementById('fw-detail');
    function any(i, f) {
      var row = d.cells[i];
      for (var c = 0; c < row.length; c++) if (row[c] && f(row[c])) return true;
      return false;
    }
    list({
      n: d.items.length, noun: 'items', columns: 3 + cols.length,
      filters: {
        all: function () { return true; },
        wrong: function (i) { return any(i, function (c) { return c[C.status] !== 'correct'; }); },
        parse: function (i) { return any(i, function (c) { return c[C.status] === 'parse'; }); },
        disagree: function (i) {
          var seen = null, differ = false;
          d.cells[i].forEach(function (c) {
            if (!c) return;
            if (seen === null) seen = c[C.letter];
            else if (c[C.letter] !== seen) differ = true;
          });
          return differ;
        },
        error: function (i) { return any(i, function (c) { return c[C.status] === 'error'; }); }
      },
      model: function () { return ''; },
      text: function (i) {
        var it = d.items[i], s = it.id + '\n' + it.category;
        d.cells[i].forEach(function (c) { if (c) s += '\n' + c[C.reply]; });
        return s;
      },
      render: function (i) {
        var it = d.items[i];
        var tds = [el('td', null, [it.id]), el('td', null, [it.category]), el('td', { class: 'num' }, [it.answer])];
        d.cells[i].forEach(function (c, ci) {
          if (!c) { tds.push(el('td', { class: 'cell c-none' }, ['·'])); return; }
          var shown = c[C.status] === 'parse' ? '?' : c[C.status] === 'error' ? '!' : c[C.letter];
          tds.push(el('td', {
            class: 'cell c-' + c[C.status], 'data-col': ci, tabindex: 0,
            title: cols[ci].label + ' · ' + cols[ci].style + ': ' + names[c[C.status]]
          }, [shown]));
        });
        return [el('tr', { class: 'item', 'data-i': i }, tds)];
      },
      detail: function (i) {
        var it = d.items[i], tb = el('tbody');
        d.cells[i].forEach(function (c, ci) {
          tb.appendChild(el('tr', null, [el('td', null, [cols[ci].label + ' · ' + cols[ci].style]),
            el('td', null, [c ? names[c[C.status]] : 'not run']), el('td', null, [c ? c[C.letter] || '(none)' : '']),
            el('td', null, [c ? c[C.rule] : '']), el('td', { class: 'snippet' }, [c ? clip(c[C.error] || c[C.reply], 120) : ''])]));
        });
        return el('div', { class: 'detail-box' }, [el('h4', null, [it.id + ' (answer ' + it.answer + ')']),
          el('table', { class: 'grid' }, [el('thead', null, [el('tr', null, ['model · style', 'verdict', 'letter', 'rule', 'reply'].map(function (h) { return el('th', null, [h]); }))]), tb]),
          el('p', { class: 'muted' }, ['Click a cell of the grid for the full reply and the prompt sent.'])]);
      }
    });
    function cellDetail(i, ci) {
      var it = d.items[i], c = d.cells[i][ci], col = cols[ci];
      var box = el('div', { class: 'detail-box' }, [el('h4', null, [col.label + ' · ' + col.style + ' · ' + it.id])]);
      if (!c) { box.appendChild(el('p', null, ['not run'])); return box; }
      box.appendChild(kv([
        ['verdict', names[c[C.status]]], ['extracted', c[C.letter] || '(none)'], ['rule', c[C.rule]], ['answer', it.answer],
        ['input tokens', c[C.input_tokens]], ['output tokens', c[C.output_tokens]],
        ['latency', c[C.latency_ms] === null ? null : c[C.latency_ms].toFixed(1) + ' ms'], ['stop reason', c[C.stop_reason]]
      ]));
      if (c[C.error]) box.appendChild(el('section', null, [el('h4', null, ['Error']), pre(c[C.error], 'text error')]));
      box.appendChild(el('section', null, [el('h4', null, ['Reply']), pre(c[C.reply] || '(empty)')]));
      box.appendChild(el('section', null, [el('h4', null, ['Prompt sent']), pre(c[C.prompt_sent])]));
      return box;
    }
    // A click on a cell shows that reply; the row's own detail row is not used.
    document.getElementById('rows').addEventListener('click', function (e) {
      var td = e.target.closest('td[data-col]');
      if (!td) return;
      e.stopPropagation();
      var i = +td.parentNode.getAttribute('data-i');
      detail.textContent = '';
      detail.appendChild(cellDetail(i, +td.getAttribute('data-col')));
      detail.hidden = false;
      document.querySelectorAll('td.selected').forEach(function (s) { s.classList.remove('selected'); });
      td.classList.add('selected');
    }, true);
  };

  kinds.microbench = function (d) {
    var F = fields(d.fields), I = d.items;
    list({
      n: I.length, noun: 'items', columns: 7,
      filters: {
        all: function () { return true; },
        wrong: function (i) { return !I[i][F.correct] && !I[i][F.error]; },
        disagree: function (i) { return I[i][F.disagree] === true; },
        tie: function (i) { return I[i][F.tie]; },
        truncated: function (i) { return I[i][F.truncated]; },
        error: function (i) { return !!I[i][F.error]; }
      },
      model: function (i) { return I[i][F.model]; },
      text: function (i) {
        var it = I[i];
        return it[F.task] + '/' + it[F.id] + '\n' + it[F.context] + '\n' + it[F.choices].map(function (c) { return c[0]; }).join('\n');
      },
      render: function (i) {
        var it = I[i], ch = it[F.choices];
        var verdict = it[F.error] ? badge('error', 'ERROR') : it[F.correct] ? badge('pass', 'RIGHT') : badge('fail', 'WRONG');
        var flags = el('td', { class: 'badges' }, [verdict]);
        if (it[F.tie]) flags.appendChild(badge('unscored', 'tie'));
        if (it[F.truncated]) flags.appendChild(badge('unscored', 'truncated'));
        var pred = it[F.prediction] >= 0 && ch[it[F.prediction]] ? ch[it[F.prediction]][0] : '—';
        return [el('tr', { class: 'mbitem', 'data-i': i, tabindex: 0 }, [
          el('td', null, [d.models[it[F.model]]]), el('td', null, [it[F.task]]), el('td', null, [it[F.id]]),
          el('td', { class: 'num' }, [it[F.level]]), flags,
          el('td', { class: 'snippet' }, [clip(pred, 60)]), el('td', { class: 'snippet' }, [clip(ch[it[F.gold]] ? ch[it[F.gold]][0] : '', 60)])
        ])];
      },
      detail: function (i) {
        var it = I[i], box = el('div', { class: 'detail-box' });
        if (it[F.error]) box.appendChild(el('section', null, [el('h4', null, ['Error']), pre(it[F.error], 'text error')]));
        box.appendChild(el('section', null, [el('h4', null, ['Context']), pre(it[F.context] || '(empty)')]));
        var tb = el('tbody');
        it[F.choices].forEach(function (c, ci) {
          var mark = (ci === it[F.gold] ? 'gold ' : '') + (ci === it[F.prediction] ? 'predicted' : '');
          tb.appendChild(el('tr', { class: mark.trim() }, [el('td', null, [mark.trim()]), el('td', null, [c[0]]),
            el('td', { class: 'num' }, [fixed(c[1], 4)]), el('td', { class: 'num' }, [fixed(c[2], 4)]),
            el('td', { class: 'num' }, [fixed(c[3], 4)])]));
        });
        box.appendChild(el('table', { class: 'grid' }, [el('thead', null, [el('tr', null, ['', 'choice', 'log P', 'value', 'null log P'].map(function (h) { return el('th', null, [h]); }))]), tb]));
        return box;
      }
    });
  };

  kinds.tests = function (d) {
    var F = fields(d.fields), T = d.tests;
    var label = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP', unfinished: 'DID NOT FINISH' };
    var cls = { pass: 'pass', fail: 'fail', skip: 'unscored', unfinished: 'error' };
    function is(s) { return function (i) { return T[i][F.status] === s; }; }
    list({
      n: T.length, noun: 'tests', columns: 4, pageSize: 500,
      filters: { all: function () { return true; }, fail: is('fail'), skip: is('skip'), pass: is('pass'), unfinished: is('unfinished') },
      model: function () { return ''; },
      text: function (i) { return T[i][F.package] + ' ' + T[i][F.name]; },
      render: function (i) {
        var t = T[i];
        return [el('tr', { class: 'test', 'data-i': i, tabindex: 0 }, [
          el('td', { class: 'badges' }, [badge(cls[t[F.status]], label[t[F.status]])]),
          el('td', null, [t[F.package]]), el('td', null, [t[F.name]]), el('td', { class: 'num' }, [t[F.elapsed].toFixed(2) + ' s'])
        ])];
      },
      detail: function (i) {
        var o = T[i][F.output];
        return el('div', { class: 'detail-box' }, [o ? pre(o) : el('p', { class: 'muted' }, ['No output kept (only failed, skipped and unfinished tests keep theirs).'])]);
      }
    });
  };

  // The Compare page: two sides (a model in a run), their paired
  // statistics as feather compare computes them, and one list of every
  // item either side has, filtered by how the two did. The drill-down
  // reads the records embedded after the script.
  kinds.compare = function (d) {
    var S = d.sides, I = d.items, SEC = d.sections;
    var selA = document.getElementById('cmp-a'), selB = document.getElementById('cmp-b');
    var statsBox = document.getElementById('cmp-stats'), panel = document.getElementById('cmp-detail');
    var sectionSel = document.getElementById('cmp-section'), search = document.getElementById('search');
    var rows = document.getElementById('rows'), count = document.getElementById('count'), more = document.getElementById('more');
    var buttons = Array.prototype.slice.call(document.querySelectorAll('#controls button[data-filter]'));
    var outcome = { R: ['pass', 'RIGHT'], W: ['fail', 'WRONG'], E: ['error', 'ERROR'], U: ['unscored', 'NO VERDICT'], '-': ['absent', 'NOT RUN'] };
    function scored(c) { return c === 'R' || c === 'W'; }
    var filters = {
      differ: function (x, y) { return scored(x) && scored(y) && x !== y; },
      onlya: function (x, y) { return x === 'R' && y === 'W'; },
      onlyb: function (x, y) { return x === 'W' && y === 'R'; },
      bothwrong: function (x, y) { return x === 'W' && y === 'W'; },
      error: function (x, y) { return x === 'E' || y === 'E'; },
      oneside: function (x, y) { return (x === '-') !== (y === '-'); },
      all: function () { return true; }
    };
    var st = { a: d.default[0], b: d.default[1], f: 'differ', s: '', q: '', sel: -1 };
    var matches = [], pos = {}, shown = 0, total = 0, lowerCache = {}, pageSize = 200;

    function sideIndex(id) {
      for (var i = 0; i < S.length; i++) if (S[i].id === id) return i;
      return -1;
    }
    function sectionIndex(id) {
      for (var i = 0; i < SEC.length; i++) if (SEC[i].id === id) return i;
      return -1;
    }
    // An item's link name is its section's id and its key: "featherweight/plain:geo07".
    function itemName(i) { return SEC[I[i][0]].id + ':' + I[i][1]; }
    function itemIndex(name) {
      var c = name.indexOf(':');
      if (c < 0) return -1;
      var sec = sectionIndex(name.slice(0, c)), key = name.slice(c + 1);
      for (var i = 0; i < I.length; i++) if (I[i][0] === sec && I[i][1] === key) return i;
      return -1;
    }
    function state() {
      return {
        a: S[st.a].id, b: S[st.b].id, f: st.f, s: st.s === '' ? '' : SEC[+st.s].id, q: st.q.trim(),
        item: st.sel >= 0 ? itemName(st.sel) : ''
      };
    }
    function fromHash() {
      var p = params(), a = sideIndex(p.a), b = sideIndex(p.b), s = p.s ? sectionIndex(p.s) : -1;
      if (a >= 0) st.a = a;
      if (b >= 0) st.b = b;
      if (p.f && filters[p.f]) st.f = p.f;
      st.s = s >= 0 ? String(s) : '';
      st.q = p.q || '';
      st.sel = p.item ? itemIndex(p.item) : -1;
      selA.value = String(st.a);
      selB.value = String(st.b);
      sectionSel.value = st.s;
      search.value = st.q;
      buttons.forEach(function (o) { o.setAttribute('aria-pressed', String(o.getAttribute('data-filter') === st.f)); });
    }

    function verdictClass(v) { return v === 'B better' ? 'v-better' : v === 'B worse' ? 'v-worse' : 'v-same'; }
    function th(cells) { return el('thead', null, [el('tr', null, cells.map(function (c) { return el('th', { class: c[1] }, [c[0]]); }))]); }

    function stats() {
      statsBox.textContent = '';
      var who = el('p', { class: 'who' }, [el('strong', null, ['A']), ' ' + S[st.a].label + ' ', el('span', { class: 'muted' }, ['· ']),
        el('strong', null, ['B']), ' ' + S[st.b].label]);
      statsBox.appendChild(who);
      if (st.a === st.b) {
        statsBox.appendChild(el('p', { class: 'note' }, ['A and B are the same: pick two models, or one model in two runs.']));
        return;
      }
      var p = d.pairs[st.a + ',' + st.b];
      if (!p) {
        statsBox.appendChild(el('p', { class: 'note' }, ['A and B have no suite in common: nothing to pair.']));
        return;
      }
      var tb = el('tbody');
      var methods = [];
      p.sections.forEach(function (x) {
        var tr = el('tr', { class: 'cmp-row ' + verdictClass(x.verdict), 'data-section': x.section, title: 'Show this suite\'s items' }, [
          el('td', null, [SEC[x.section].label]), el('td', { class: 'num' }, [x.units]),
          el('td', { class: 'num' }, [x.rate_a]), el('td', { class: 'num' }, [x.rate_b]),
          el('td', { class: 'num' }, [x.diff]), el('td', { class: 'num' }, [String(x.behind)]), el('td', { class: 'num' }, [String(x.ahead)]),
          el('td', { class: 'num' }, [x.p]), el('td', { class: 'verdict' }, [x.verdict]), el('td', null, [x.left_out || '—'])
        ]);
        tb.appendChild(tr);
        var m = SEC[x.section].label + ': ' + x.method;
        if (x.table) m += ' (both right ' + x.table[0] + ', only A ' + x.table[1] + ', only B ' + x.table[2] + ', both wrong ' + x.table[3] + ')';
        methods.push(m);
      });
      statsBox.appendChild(el('div', { class: 'scroll' }, [el('table', { class: 'cmp-stats' }, [th([['suite'], ['paired', 'num'], ['A', 'num'], ['B', 'num'],
        ['B − A [95% CI]', 'num'], ['A ahead', 'num'], ['B ahead', 'num'], ['p', 'num'], ['verdict'], ['left out, listed below']]), tb])]));
      var ul = el('ul', { class: 'explain methods' });
      methods.forEach(function (m) { ul.appendChild(el('li', null, [m])); });
      statsBox.appendChild(ul);
      (p.missing || []).forEach(function (m) { statsBox.appendChild(el('p', { class: 'muted' }, ['Not compared: ' + m + '.'])); });
      p.sections.forEach(function (x) {
        if (!x.microbench) return;
        var mb = x.microbench, body = el('tbody');
        mb.rows.forEach(function (r) {
          body.appendChild(el('tr', { class: r.sig ? 'sig' : null }, [el('td', null, [r.name]), el('td', { class: 'num' }, [r.a]), el('td', { class: 'num' }, [r.b]),
            el('td', { class: 'num' }, [r.diff]), el('td', null, [r.sig ? '≠' : ''])]));
        });
        statsBox.appendChild(el('h3', null, ['μBench domains and index']));
        (mb.warnings || []).forEach(function (w) { statsBox.appendChild(el('p', { class: 'note' }, ['Warning: ' + w + '.'])); });
        statsBox.appendChild(el('div', { class: 'scroll' }, [el('table', { class: 'cmp-mb' }, [th([['score'], ['A', 'num'], ['B', 'num'], ['B − A ± SE', 'num'], ['']]), body])]));
        statsBox.appendChild(el('p', { class: 'explain' }, ['Scores (0–100) over the units both scored, with the paired standard error of the difference; ≠ marks one outside ±1.96 SE.' +
          (mb.no_index ? ' No index difference: some domain has a task only one side scored.' : '')]));
      });
    }

    function cell(code, answer) {
      var o = outcome[code];
      return el('td', { class: 'side c-' + o[0] }, [badge(o[0], o[1]), el('span', { class: 'answer' }, [code === '-' ? '' : clip(answer, 90)])]);
    }
    function row(i) {
      var it = I[i];
      return el('tr', { class: 'cmpitem' + (i === st.sel ? ' selected' : ''), 'data-i': i, tabindex: 0, 'aria-selected': String(i === st.sel) }, [
        el('td', { class: 'muted' }, [SEC[it[0]].label]), el('td', { class: 'key' }, [it[1]]),
        cell(it[2][st.a], it[3][st.a]), cell(it[2][st.b], it[3][st.b])
      ]);
    }
    function page() {
      var frag = document.createDocumentFragment();
      var end = Math.min(shown + pageSize, matches.length);
      for (var k = shown; k < end; k++) frag.appendChild(row(matches[k]));
      if (!matches.length && !shown) frag.appendChild(el('tr', { class: 'empty' }, [el('td', { colspan: 4 }, ['No item matches: try another filter, suite or search.'])]));
      rows.appendChild(frag);
      shown = end;
      count.textContent = 'Showing ' + shown + ' of ' + matches.length + ' matching items (' + total + ' in A or B)';
      more.hidden = shown >= matches.length;
      more.textContent = 'Show ' + Math.min(pageSize, matches.length - shown) + ' more';
    }
    function apply() {
      var a = st.a, b = st.b, f = filters[st.f], sec = st.s === '' ? -1 : +st.s;
      var q = st.q.trim().toLowerCase(), lower = null;
      if (q) {
        lower = lowerCache[a + ',' + b];
        if (!lower) {
          lower = new Array(I.length);
          for (var j = 0; j < I.length; j++) lower[j] = (I[j][1] + '\n' + (I[j][3][a] || '') + '\n' + (I[j][3][b] || '')).toLowerCase();
          lowerCache[a + ',' + b] = lower;
        }
      }
      matches = [];
      pos = {};
      total = 0;
      for (var i = 0; i < I.length; i++) {
        var it = I[i], x = it[2][a], y = it[2][b];
        if (x === '-' && y === '-') continue;
        total++;
        if (sec >= 0 && it[0] !== sec) continue;
        if (!f(x, y)) continue;
        if (q && lower[i].indexOf(q) < 0) continue;
        pos[i] = matches.length;
        matches.push(i);
      }
      rows.textContent = '';
      shown = 0;
      page();
      // A linked item near the top of the list is drawn with its page.
      if (st.sel >= 0 && pos[st.sel] !== undefined && pos[st.sel] < 2000) {
        while (shown <= pos[st.sel]) page();
      }
      setParams(state());
    }

    function rowOf(i) { return rows.querySelector('tr[data-i="' + i + '"]'); }
    function select(i, focus) {
      var old = rows.querySelector('tr.selected');
      if (old) { old.classList.remove('selected'); old.setAttribute('aria-selected', 'false'); }
      st.sel = i;
      setParams(state());
      if (i < 0) { panel.hidden = true; panel.textContent = ''; return; }
      var tr = rowOf(i);
      if (tr) {
        tr.classList.add('selected');
        tr.setAttribute('aria-selected', 'true');
        if (focus) { tr.focus({ preventScroll: true }); tr.scrollIntoView({ block: 'nearest' }); }
      }
      showDetail(i);
    }
    function move(delta) {
      if (!matches.length) return;
      var k = st.sel >= 0 && pos[st.sel] !== undefined ? pos[st.sel] + delta : (delta > 0 ? 0 : shown - 1);
      k = Math.max(0, Math.min(matches.length - 1, k));
      while (k >= shown) page();
      select(matches[k], true);
    }

    function showDetail(i) {
      var it = I[i], sec = SEC[it[0]];
      panel.hidden = false;
      panel.textContent = '';
      var close = el('button', { type: 'button', class: 'close', title: 'Close (Esc)', 'aria-label': 'close' }, ['×']);
      close.addEventListener('click', function () { select(-1); });
      panel.appendChild(el('div', { class: 'head' }, [el('h3', null, [sec.label + ' · ' + it[1]]), close]));
      panel.appendChild(el('p', null, [el('a', { class: 'permalink', href: hashOf(state()) }, ['Link to this item'])]));
      var cols = [];
      [st.a, st.b].forEach(function (side, k) {
        var code = it[2][side], o = outcome[code];
        var col = el('section', { class: 'cmp-side' }, [el('h4', null, [(k ? 'B' : 'A') + ' · ' + S[side].label]),
          el('p', null, [badge(o[0], o[1]), ' ', code === '-' ? 'this side has no such item' : clip(it[3][side], 200)])]);
        var body = el('div', { class: 'rec' }, code === '-' ? [] : [el('p', { class: 'muted' }, ['Loading…'])]);
        col.appendChild(body);
        cols.push([side, body]);
      });
      panel.appendChild(el('div', { class: 'cmp-sides' }, cols.map(function (c) { return c[1].parentNode; })));
      details().then(function (dd) {
        if (st.sel !== i || !dd) return;
        var F = fields(dd.fields[sec.suite] || []);
        cols.forEach(function (c) {
          var rec = dd.items[i][c[0]];
          if (!rec) return;
          c[1].textContent = '';
          c[1].appendChild(recordDetail(sec.suite, F, rec));
        });
      }).catch(function (err) { console.error(err); });
    }

    function recordDetail(suite, F, r) {
      var box = el('div', { class: 'detail-box' });
      function section(title, node) { box.appendChild(el('section', null, [el('h4', null, [title]), node])); }
      if (r[F.error]) section('Error', pre(r[F.error], 'text error'));
      if (suite === 'featherweight') {
        box.appendChild(kv([['extracted', r[F.letter] || '(no letter)'], ['rule that fired', r[F.rule]], ['answer', r[F.answer]], ['stop reason', r[F.stop_reason]]]));
        section('Reply', pre(r[F.reply] || '(empty)'));
        box.appendChild(el('details', null, [el('summary', null, ['Prompt sent']), pre(r[F.prompt_sent])]));
      } else if (suite === 'microbench') {
        box.appendChild(kv([['reduction', r[F.reduction]], ['tie', r[F.tie] ? 'yes: the first of the tied choices is taken' : null], ['truncated', r[F.truncated] ? 'left-truncated' : null]]));
        var tb = el('tbody');
        r[F.choices].forEach(function (c, ci) {
          var mark = ((ci === r[F.gold] ? 'gold ' : '') + (ci === r[F.prediction] ? 'chosen' : '')).trim();
          tb.appendChild(el('tr', { class: mark || null }, [el('td', null, [mark]), el('td', null, [c[0]]),
            el('td', { class: 'num' }, [fixed(c[1], 4)]), el('td', { class: 'num' }, [fixed(c[2], 4)]), el('td', { class: 'num' }, [fixed(c[3], 4)])]));
        });
        section('Choices', el('div', { class: 'scroll' }, [el('table', { class: 'grid' }, [th([[''], ['choice'], ['log P', 'num'], ['value', 'num'], ['null log P', 'num']]), tb])]));
        box.appendChild(el('details', null, [el('summary', null, ['Context']), pre(r[F.context] || '(empty)')]));
      } else if (suite === 'featherbench') {
        if (r[F.check_detail]) section('Checker', pre(r[F.check_detail]));
        if (r[F.rubric] && r[F.rubric].length) section('Rubric', rubricTable(r[F.rubric]));
        var calls = r[F.tool_calls] || [];
        if (calls.length) {
          var ul = el('ul', { class: 'calls' });
          calls.forEach(function (c) { ul.appendChild(el('li', null, [el('code', null, [c.name]), pre(c.args ? JSON.stringify(c.args, null, 2) : (c.raw_args || ''))])); });
          section('Tool calls', ul);
        }
        section('Response', pre(r[F.text] || '(empty)'));
        box.appendChild(kv([['refused', r[F.refusal] ? 'yes' : null], ['stop reason', r[F.stop_reason]], ['rubric mean', r[F.rubric_mean] === null ? null : r[F.rubric_mean].toFixed(1) + ' / 10'],
          ['cost', r[F.cost_usd] === null ? null : usd(r[F.cost_usd])], ['latency', r[F.latency_s] === null ? null : secs(r[F.latency_s])], ['wall', r[F.wall_clock_s] === null ? null : secs(r[F.wall_clock_s])]]));
      }
      return box;
    }

    selA.addEventListener('change', function () { st.a = +selA.value; stats(); apply(); if (st.sel >= 0) showDetail(st.sel); });
    selB.addEventListener('change', function () { st.b = +selB.value; stats(); apply(); if (st.sel >= 0) showDetail(st.sel); });
    function swap() {
      var t = st.a;
      st.a = st.b;
      st.b = t;
      selA.value = String(st.a);
      selB.value = String(st.b);
      stats();
      apply();
      if (st.sel >= 0) showDetail(st.sel);
    }
    document.getElementById('cmp-swap').addEventListener('click', swap);
    function setFilter(f) {
      st.f = f;
      buttons.forEach(function (o) { o.setAttribute('aria-pressed', String(o.getAttribute('data-filter') === f)); });
      apply();
    }
    buttons.forEach(function (b) { b.addEventListener('click', function () { setFilter(b.getAttribute('data-filter')); }); });
    sectionSel.addEventListener('change', function () { st.s = sectionSel.value; apply(); });
    statsBox.addEventListener('click', function (e) {
      var tr = e.target.closest('tr[data-section]');
      if (!tr) return;
      st.s = tr.getAttribute('data-section');
      sectionSel.value = st.s;
      apply();
    });
    var timer = null;
    search.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(function () { st.q = search.value; apply(); }, 120);
    });
    search.addEventListener('keydown', function (e) {
      if (e.key === 'Enter') { clearTimeout(timer); st.q = search.value; apply(); }
    });
    more.addEventListener('click', page);
    rows.addEventListener('click', function (e) {
      var tr = e.target.closest('tr[data-i]');
      if (tr) select(+tr.getAttribute('data-i'), false);
    });
    document.addEventListener('keydown', function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      var t = e.target, typing = t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA');
      if (typing) {
        if (e.key === 'Escape') t.blur();
        return;
      }
      var n = '1234567'.indexOf(e.key);
      if (e.key === 'j' || e.key === 'ArrowDown') move(1);
      else if (e.key === 'k' || e.key === 'ArrowUp') move(-1);
      else if (e.key === 'Escape') select(-1);
      else if (e.key === '/') search.focus();
      else if (e.key === 'x') swap();
      else if (n >= 0 && buttons[n]) setFilter(buttons[n].getAttribute('data-filter'));
      else if (e.key === 'Enter' && t.getAttribute && t.getAttribute('data-i') !== null) select(+t.getAttribute('data-i'), true);
      else return;
      e.preventDefault();
    });
    window.addEventListener('hashchange', function () {
      if (location.hash === hashOf(state())) return;
      fromHash();
      stats();
      apply();
      select(st.sel, true);
    });

    fromHash();
    stats();
    apply();
    if (st.sel >= 0) select(st.sel, true);
  };

  // decode reads a data element: plain JSON, or (a large record set)
  // gzipped and base64-encoded, unpacked by the browser's own
  // DecompressionStream.
  function decode(node) {
    if (node.getAttribute('data-encoding') !== 'gzip+base64') {
      return Promise.resolve(JSON.parse(node.textContent));
    }
    var bytes;
    var b64 = node.textContent.trim();
    if (Uint8Array.fromBase64) {
      bytes = Uint8Array.fromBase64(b64);
    } else {
      var bin = atob(b64);
      bytes = new Uint8Array(bin.length);
      for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    }
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text()
      .then(function (text) { return JSON.parse(text); });
  }

  // details is the page's drill-down data (the element after the script),
  // read once, when first asked for: the browser may still be reading it
  // when the page is already in use.
  var detailData = null;
  function details() {
    if (detailData) return detailData;
    detailData = new Promise(function (resolve) {
      if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', resolve);
      else resolve();
    }).then(function () {
      var n = document.getElementById('feather-detail');
      return n ? decode(n) : null;
    });
    return detailData;
  }

  function start(data) {
    if (kinds[data.kind]) kinds[data.kind](data);
    document.body.setAttribute('data-ready', 'true');
    if (window.performance && performance.mark) performance.mark('feather-ready');
  }
  if (node.getAttribute('data-encoding') !== 'gzip+base64') {
    start(JSON.parse(node.textContent));
    return;
  }
  var count = document.getElementById('count');
  if (count) count.textContent = 'Unpacking the records…';
  decode(node).then(start).catch(function (err) {
    if (count) count.textContent = 'Could not unpack the records: ' + err;
    console.error(err);
  });
})();
