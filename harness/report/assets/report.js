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

    function apply() {
      var q = search ? search.value.trim().toLowerCase() : '';
      var m = model ? model.value : '';
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
        refused: function (i) { return T[i][F.refusal] === true; },
        error: function (i) { return T[i][F.status] === 'error'; }
      },
      model: function (i) { return T[i][F.model]; },
      text: function (i) {
        var t = T[i];
        return (t[F.text] || '') + '\n' + (t[F.tool_calls] ? JSON.stringify(t[F.tool_calls]) : '');
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
            el('td', { class: 'num' }, [c[1].toFixed(4)]), el('td', { class: 'num' }, [c[2].toFixed(4)]),
            el('td', { class: 'num' }, [c[3] === null ? '—' : c[3].toFixed(4)])]));
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

  function start(data) {
    if (kinds[data.kind]) kinds[data.kind](data);
    document.body.setAttribute('data-ready', 'true');
    if (window.performance && performance.mark) performance.mark('feather-ready');
  }
  if (node.getAttribute('data-encoding') !== 'gzip+base64') {
    start(JSON.parse(node.textContent));
    return;
  }
  // A large record set is embedded gzipped and base64-encoded.
  var count = document.getElementById('count');
  if (count) count.textContent = 'Unpacking the records…';
  var bytes;
  var b64 = node.textContent.trim();
  if (Uint8Array.fromBase64) {
    bytes = Uint8Array.fromBase64(b64);
  } else {
    var bin = atob(b64);
    bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  }
  new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text()
    .then(function (text) { start(JSON.parse(text)); })
    .catch(function (err) {
      if (count) count.textContent = 'Could not unpack the records: ' + err;
      console.error(err);
    });
})();
