// The operator page: polls the JSON endpoints, draws the tables and a small chart, and sends
// actions as POSTs carrying this server's CSRF token. Text from the store is only ever set as
// textContent, never as HTML.
'use strict';

const POLL_MILLIS = 3000;
const CHART_SAMPLES = 120;
const csrf = document.querySelector('meta[name="inbox-csrf"]').content;
const readOnly = document.querySelector('meta[name="inbox-read-only"]').content === 'true';
const samples = [];
let pruneCandidate = null;

function $(id) { return document.getElementById(id); }

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function age(ms) {
  if (ms === null || ms === undefined) return '–';
  const neg = ms < 0;
  let s = Math.floor(Math.abs(ms) / 1000);
  let out;
  if (s < 60) out = s + 's';
  else if (s < 3600) out = Math.floor(s / 60) + 'm' + (s % 60 ? (s % 60) + 's' : '');
  else if (s < 86400) out = Math.floor(s / 3600) + 'h' + (Math.floor(s % 3600 / 60) ? Math.floor(s % 3600 / 60) + 'm' : '');
  else out = Math.floor(s / 86400) + 'd' + (Math.floor(s % 86400 / 3600) ? Math.floor(s % 86400 / 3600) + 'h' : '');
  return neg ? '-' + out : out;
}

async function getJson(path) {
  const response = await fetch(path, { credentials: 'same-origin', cache: 'no-store' });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

async function post(path, params) {
  const form = new URLSearchParams(params);
  form.set('csrf', csrf);
  const response = await fetch(path, { method: 'POST', body: form, credentials: 'same-origin' });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

function say(message) { $('message').textContent = message; $('error').textContent = ''; }
function fail(error) { $('error').textContent = error.message || String(error); }

async function act(question, path, params) {
  if (!window.confirm(question)) return;
  try {
    const result = await post(path, params);
    say(result.message);
  } catch (e) {
    fail(e);
  }
  await refresh();
}

function actionButton(label, cls, onClick) {
  const b = el('button', label, 'action ' + cls);
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}

function renderConsumers(overview) {
  const body = $('consumers').querySelector('tbody');
  body.replaceChildren();
  const select = $('prune-consumer');
  const chosen = select.value;
  select.replaceChildren(el('option', 'all'));
  select.firstChild.value = '';
  for (const c of overview.consumers) {
    const tr = el('tr');
    tr.dataset.consumer = c.consumer;
    tr.append(el('td', c.consumer, 'name'),
      el('td', c.processing, 'num processing-count'),
      el('td', c.done, 'num done-count'),
      el('td', c.dead, 'num dead-count' + (c.dead > 0 ? ' bad' : '')),
      el('td', c.stuck, 'num stuck-count' + (c.stuck > 0 ? ' warn' : '')),
      el('td', c.processing > 0 ? age(c.oldestProcessingMillis) : '–', 'num oldest'),
      el('td', c.pastRetention, 'num past-retention-count'));
    const actions = el('td');
    if (c.dead > 0) {
      actions.append(actionButton('retry all dead', 'retry-all', () =>
        act('Make all ' + c.dead + ' DEAD record(s) of ' + c.consumer + ' retryable again?',
          'api/retry-dead', { consumer: c.consumer })));
    }
    tr.append(actions);
    body.append(tr);
    const option = el('option', c.consumer);
    option.value = c.consumer;
    select.append(option);
  }
  select.value = chosen;
  $('no-consumers').hidden = overview.consumers.length > 0;
}

function renderProcessing(list) {
  const body = $('processing').querySelector('tbody');
  body.replaceChildren();
  for (const r of list.records) {
    const tr = el('tr');
    tr.dataset.consumer = r.consumer;
    tr.dataset.id = r.messageId;
    const expired = r.leaseLeftMillis <= 0;
    tr.append(el('td', r.consumer), el('td', r.messageId, 'id'),
      el('td', expired ? 'expired ' + age(-r.leaseLeftMillis) + ' ago' : age(r.leaseLeftMillis) + ' left',
        'lease' + (expired ? ' warn' : '')),
      el('td', r.attempts, 'num attempts'), el('td', r.lastError || '', 'error'));
    const actions = el('td');
    if (!expired) {
      actions.append(actionButton('release', 'release', () =>
        act('Release ' + r.consumer + '/' + r.messageId + '? Its owner, if alive, is fenced out and'
          + ' the next delivery takes the message over.', 'api/release',
          { consumer: r.consumer, id: r.messageId })));
    }
    tr.append(actions);
    body.append(tr);
  }
}

function renderDead(list) {
  const body = $('dead').querySelector('tbody');
  body.replaceChildren();
  for (const r of list.records) {
    const tr = el('tr');
    tr.dataset.consumer = r.consumer;
    tr.dataset.id = r.messageId;
    tr.append(el('td', r.consumer), el('td', r.messageId, 'id'), el('td', r.attempts, 'num attempts'),
      el('td', r.lastError || '', 'error'));
    const actions = el('td');
    actions.append(actionButton('retry', 'retry', () =>
      act('Make ' + r.consumer + '/' + r.messageId + ' retryable again (attempt 1 at its next'
        + ' delivery)?', 'api/retry-dead', { consumer: r.consumer, id: r.messageId })));
    tr.append(actions);
    body.append(tr);
  }
}

// The outbox panel, shown only when the server was given an outbox (api/outbox answers
// available:false otherwise). Its rows are fetched only when there are some to show.
async function refreshOutbox() {
  const status = await getJson('api/outbox');
  $('outbox').hidden = !status.available;
  if (!status.available) return;
  const [dead, pending] = await Promise.all([
    status.dead > 0 ? getJson('api/outbox/rows?state=DEAD&limit=100') : { rows: [] },
    status.pending > 0 ? getJson('api/outbox/rows?state=PENDING&limit=20') : { rows: [] }]);
  renderOutbox(status, dead.rows, pending.rows);
}

function renderOutbox(status, dead, pending) {
  $('outbox-table').textContent = '(table ' + status.table + ')';
  const counts = $('outbox-counts');
  counts.querySelector('.outbox-pending').textContent = status.pending;
  counts.querySelector('.outbox-oldest').textContent =
    status.oldestPendingMillis === null ? '–' : age(status.oldestPendingMillis);
  counts.querySelector('.outbox-sent').textContent = status.sent;
  const deadCell = counts.querySelector('.outbox-dead');
  deadCell.textContent = status.dead;
  deadCell.className = 'num outbox-dead' + (status.dead > 0 ? ' bad' : '');
  const actions = counts.querySelector('.outbox-actions');
  actions.replaceChildren();
  if (status.dead > 0) {
    actions.append(actionButton('retry all dead', 'outbox-retry-all', () =>
      act('Put all ' + status.dead + ' DEAD outbox row(s) back to PENDING? The relay publishes them'
        + ' again; fix what parked them first.', 'api/outbox/retry-dead', {})));
  }
  renderOutboxRows('outbox-dead-rows', dead, true);
  renderOutboxRows('outbox-pending-rows', pending, false);
}

function renderOutboxRows(table, rows, retry) {
  const body = $(table).querySelector('tbody');
  body.replaceChildren();
  for (const r of rows) {
    const tr = el('tr');
    tr.dataset.id = r.messageId;
    tr.append(el('td', r.messageId, 'id'), el('td', r.destination), el('td', r.key === null ? '–' : r.key),
      el('td', r.attempts, 'num attempts'), el('td', r.lastError || '', 'error'), el('td', r.createdAt));
    if (retry) {
      const actions = el('td');
      actions.append(actionButton('retry', 'outbox-retry', () =>
        act('Put outbox row ' + r.messageId + ' (to ' + r.destination + ') back to PENDING? The relay'
          + ' publishes it again, before the later rows of its key.', 'api/outbox/retry-dead',
          { id: r.messageId })));
      tr.append(actions);
    }
    body.append(tr);
  }
}

// The chart shows one of two things. With an outcome source (a Spring Boot application with the
// metrics module) it plots, per outcome summed over consumers, how many deliveries ended that way
// between two refreshes; the source's totals are cumulative, so the page differences them. Without
// one it plots the state counts it samples itself.
const STATE_KEYS = ['processing', 'dead', 'done', 'stuck'];
const outcomeTotals = [];

function polyline(cls, values, max) {
  const line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
  line.setAttribute('class', cls);
  line.setAttribute('points', values.map((v, i) =>
    (i * 600 / (values.length - 1)).toFixed(1) + ',' + (115 - v * 110 / max).toFixed(1)).join(' '));
  return line;
}

function drawStateChart() {
  const svg = $('chart');
  svg.replaceChildren();
  if (samples.length < 2) return;
  const max = Math.max(1, ...samples.flatMap(s => STATE_KEYS.map(k => s[k])));
  for (const key of STATE_KEYS) svg.append(polyline(key, samples.map(s => s[key]), max));
}

// Per-interval deltas; a total that went down (the application restarted) counts as 0, not < 0.
function outcomeRates() {
  const names = [...new Set(outcomeTotals.flatMap(t => Object.keys(t)))].sort();
  const rates = {};
  for (const name of names) {
    rates[name] = [];
    for (let i = 1; i < outcomeTotals.length; i++) {
      rates[name].push(Math.max(0, (outcomeTotals[i][name] || 0) - (outcomeTotals[i - 1][name] || 0)));
    }
  }
  return rates;
}

function drawOutcomeChart() {
  const svg = $('chart');
  svg.replaceChildren();
  const rates = outcomeRates();
  const names = Object.keys(rates);
  const legend = $('chart-legend');
  legend.replaceChildren();
  for (const name of names) {
    legend.append(el('span', name.replace('_', ' '), 'o-' + name), ' ');
  }
  if (outcomeTotals.length < 3) return;
  const max = Math.max(1, ...names.flatMap(n => rates[n]));
  for (const name of names) svg.append(polyline('o-' + name, rates[name], max));
}

function showOutcomeCaption() {
  if (document.body.dataset.chart === 'outcomes') return;
  document.body.dataset.chart = 'outcomes';
  $('chart-title').textContent = 'Outcomes over time';
  $('chart-caption').textContent = '(deliveries per refresh, by outcome, from the inbox.deliveries meter)';
  $('chart').setAttribute('aria-label', 'delivery outcomes per refresh over time');
}

function sample(overview, outcomes) {
  if (outcomes.available) {
    const total = {};
    for (const counts of Object.values(outcomes.consumers)) {
      for (const [name, count] of Object.entries(counts)) total[name] = (total[name] || 0) + count;
    }
    outcomeTotals.push(total);
    if (outcomeTotals.length > CHART_SAMPLES + 1) outcomeTotals.shift();
    showOutcomeCaption();
    drawOutcomeChart();
    return;
  }
  const total = { processing: 0, dead: 0, done: 0, stuck: 0 };
  for (const c of overview.consumers) {
    total.processing += c.processing; total.dead += c.dead; total.done += c.done; total.stuck += c.stuck;
  }
  samples.push(total);
  if (samples.length > CHART_SAMPLES) samples.shift();
  drawStateChart();
}

let refreshing = null;
async function refresh() {
  // One refresh at a time: an action's refresh waits for a poll in progress, then runs its own.
  while (refreshing) await refreshing;
  refreshing = (async () => {
    try {
      const [overview, processing, dead, outcomes] = await Promise.all([
        getJson('api/overview'),
        getJson('api/records?state=PROCESSING&limit=100'),
        getJson('api/records?state=DEAD&limit=100'),
        getJson('api/outcomes')]);
      $('location').textContent = overview.location;
      $('updated').textContent = overview.now;
      renderConsumers(overview);
      renderProcessing(processing);
      renderDead(dead);
      sample(overview, outcomes);
      await refreshOutbox();
      document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || 0) + 1);
    } catch (e) {
      fail(e);
    }
  })();
  try { await refreshing; } finally { refreshing = null; }
}

$('search-form').addEventListener('submit', async event => {
  event.preventDefault();
  const out = $('search-result');
  out.replaceChildren();
  try {
    const found = await getJson('api/find?id=' + encodeURIComponent($('search-id').value));
    for (const r of found.records) {
      out.append(el('p', r.consumer + ' / ' + r.messageId + ': ' + r.state + ', attempt ' + r.attempts
        + (r.leaseLeftMillis !== null ? ', lease ' + age(r.leaseLeftMillis) : '')
        + (r.lastError ? ', last error: ' + r.lastError : ''), 'found'));
    }
  } catch (e) {
    out.append(el('p', e.message, 'bad not-found'));
  }
});

$('prune-form').addEventListener('submit', async event => {
  event.preventDefault();
  $('prune-run').hidden = true;
  pruneCandidate = null;
  try {
    const params = new URLSearchParams({ olderThan: $('prune-older-than').value.trim() });
    if ($('prune-consumer').value) params.set('consumer', $('prune-consumer').value);
    const preview = await getJson('api/prune-preview?' + params);
    $('prune-preview-result').textContent = preview.message;
    pruneCandidate = preview;
    $('prune-run').textContent = 'prune ' + preview.count + ' record(s)';
    $('prune-run').hidden = readOnly || preview.count === 0;
  } catch (e) {
    $('prune-preview-result').textContent = e.message;
  }
});

$('prune-run').addEventListener('click', () => {
  if (!pruneCandidate) return;
  const params = { olderThan: pruneCandidate.olderThan };
  if (pruneCandidate.consumer) params.consumer = pruneCandidate.consumer;
  $('prune-run').hidden = true;
  act('Delete the DONE records' + (pruneCandidate.consumer ? ' of ' + pruneCandidate.consumer : '')
    + ' not updated for ' + pruneCandidate.olderThan + ' (about ' + pruneCandidate.count + ')?'
    + ' A redelivery of one of them would run again.', 'api/prune', params);
  pruneCandidate = null;
});

if (readOnly) {
  document.body.classList.add('read-only');
  $('read-only-badge').hidden = false;
}
refresh();
(function poll() { setTimeout(() => refresh().then(poll, poll), POLL_MILLIS); })();
