// The sharpness explorer's numbers, computed where the reader is (§4.6).
//
// A port of attnkit/sharpness.py, which stays the reference: the integration test
// tests/integration/test_explorer_numbers.py runs this file in Chromium and compares
// every number with attnkit's on the same inputs (tolerance 1e-6).
//
// Shape legend: T queries = keys (seq_len), N head dims, M the table's seq_len (64).
// The input is attnkit.sharpness.raw_scores(seed): the unscaled q·k at every head_dim,
// a Float64Array of N * M * M (row-major). Draws nest, so the first T rows and columns
// of table i are the raw scores of seq_len T at head_dims[i]. Here we only scale, mask,
// softmax and measure, as attnkit.sharpness.measure does.

export const MASK_VALUE = -1e9; // attnkit.masks.MASK_VALUE: added to blocked scores

// Raw scores of one setting: T x T, copied out of the table.
function rawBlock(table, index, seqLen, tableSeqLen) {
  const raw = new Float64Array(seqLen * seqLen); // (T, T)
  const base = index * tableSeqLen * tableSeqLen;
  for (let i = 0; i < seqLen; i++) {
    raw.set(table.subarray(base + i * tableSeqLen, base + i * tableSeqLen + seqLen), i * seqLen);
  }
  return raw;
}

// Population standard deviation (numpy's std) of x over the visible cells.
function visibleStd(x, seqLen, causal) {
  let sum = 0, count = 0;
  for (let i = 0; i < seqLen; i++) {
    for (let j = 0; j <= (causal ? i : seqLen - 1); j++) { sum += x[i * seqLen + j]; count++; }
  }
  const mean = sum / count;
  let squares = 0;
  for (let i = 0; i < seqLen; i++) {
    for (let j = 0; j <= (causal ? i : seqLen - 1); j++) { const d = x[i * seqLen + j] - mean; squares += d * d; }
  }
  return Math.sqrt(squares / count);
}

// Row-wise softmax(scores + mask) in place, stable (the row max is subtracted first).
function softmaxRows(scores, seqLen, causal) {
  for (let i = 0; i < seqLen; i++) {
    const row = scores.subarray(i * seqLen, (i + 1) * seqLen); // (T,)
    if (causal) for (let j = i + 1; j < seqLen; j++) row[j] += MASK_VALUE;
    let max = -Infinity;
    for (let j = 0; j < seqLen; j++) if (row[j] > max) max = row[j];
    let sum = 0;
    for (let j = 0; j < seqLen; j++) { row[j] = Math.exp(row[j] - max); sum += row[j]; }
    for (let j = 0; j < seqLen; j++) row[j] /= sum;
  }
  return scores;
}

// One setting: the weights and how peaked they are, as attnkit.sharpness.measure.
// `setting` = {index, headDim, scaled, seqLen, causal, tableSeqLen}.
export function measure(table, setting) {
  const {index, headDim, scaled, seqLen, causal, tableSeqLen} = setting;
  const raw = rawBlock(table, index, seqLen, tableSeqLen); // (T, T)
  const scale = scaled ? 1 / Math.sqrt(headDim) : 1;
  const weights = new Float64Array(seqLen * seqLen); // (T, T)
  for (let c = 0; c < raw.length; c++) weights[c] = raw[c] * scale;
  const scoreStd = visibleStd(weights, seqLen, causal);
  softmaxRows(weights, seqLen, causal);
  const rowMax = new Float64Array(seqLen), rowEntropy = new Float64Array(seqLen); // (T,) each
  const rowEntropyMax = new Float64Array(seqLen); // (T,) ln(visible keys)
  for (let i = 0; i < seqLen; i++) {
    let max = 0, entropy = 0;
    for (let j = 0; j < seqLen; j++) {
      const w = weights[i * seqLen + j];
      if (w > max) max = w;
      if (w > 0) entropy += w * Math.log(w); // 0 · ln 0 = 0: blocked cells cost nothing
    }
    rowMax[i] = max;
    rowEntropy[i] = 0 - entropy; // 0 - x, as in Python: one-hot rows give 0, not -0
    rowEntropyMax[i] = Math.log(causal ? i + 1 : seqLen);
  }
  return {
    headDim, scaled, causal, seqLen, weights, rowMax, rowEntropy, rowEntropyMax,
    rawScoreStd: visibleStd(raw, seqLen, causal), scoreStd,
    meanEntropy: mean(rowEntropy), meanMaxWeight: mean(rowMax),
  };
}

function mean(values) {
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

// Entropy / its uniform ceiling per row, in [0, 1]; a row with one visible key counts as 0.
export function entropyFraction(m) {
  return m.rowEntropy.map((h, i) => h / (m.rowEntropyMax[i] > 0 ? m.rowEntropyMax[i] : 1)); // (T,)
}

// measure(...).meanEntropy alone, for the curves: 22 settings per seq_len move, so no arrays
// are kept, blocked cells (whose weight is exactly 0) are skipped, and each row's entropy is
// ln(sum) - Σ e·x / sum with x = score - max and e = exp(x), one log per row instead of one per cell.
export function meanEntropy(table, {index, headDim, scaled, seqLen, causal, tableSeqLen}) {
  const scale = scaled ? 1 / Math.sqrt(headDim) : 1, base = index * tableSeqLen * tableSeqLen;
  let total = 0;
  for (let i = 0; i < seqLen; i++) {
    const row = base + i * tableSeqLen, visible = causal ? i + 1 : seqLen;
    let max = -Infinity;
    for (let j = 0; j < visible; j++) max = Math.max(max, table[row + j] * scale);
    let sum = 0, weighted = 0;
    for (let j = 0; j < visible; j++) {
      const x = table[row + j] * scale - max, e = Math.exp(x);
      sum += e;
      weighted += e * x;
    }
    total += Math.log(sum) - weighted / sum;
  }
  return total / seqLen;
}

// Mean entropy against head_dim for both scalings: {false: Float64Array(N), true: Float64Array(N)}.
export function curves(table, headDims, seqLen, causal, tableSeqLen) {
  const result = {false: new Float64Array(headDims.length), true: new Float64Array(headDims.length)};
  headDims.forEach((headDim, index) => {
    for (const scaled of [false, true]) {
      result[scaled][index] = meanEntropy(table, {index, headDim, scaled, seqLen, causal, tableSeqLen});
    }
  });
  return result;
}

// Mean entropy of uniform rows: ln T, or the mean of ln(i + 1) under the causal mask.
export function uniformEntropy(seqLen, causal) {
  if (!causal) return Math.log(seqLen);
  let sum = 0;
  for (let i = 1; i <= seqLen; i++) sum += Math.log(i);
  return sum / seqLen;
}

// Python's f"{x:.2f}": like toFixed(2), except that an exact tie (x = odd / 8) goes to the
// even digit, as Python rounds, where toFixed goes up (0.125 → "0.12", not "0.13").
export function fixed2(x) {
  const eighths = x * 8;
  if (Number.isInteger(eighths) && eighths % 2 !== 0) {
    const hundredths = Math.floor(x * 100); // exact for odd eighths
    return ((hundredths % 2 === 0 ? hundredths : hundredths + 1) / 100).toFixed(2);
  }
  return x.toFixed(2);
}

// A catalogue's template ("{raw:.2f}") with each placeholder replaced by its value, already formatted as Python
// formats it (the format spec is Python's, read here only to find the placeholder's end).
export function fill(template, values) {
  return template.replace(/\{\{|\}\}|\{(\w+)(?::[^{}]*)?\}/g,
                          (whole, name) => (name === undefined ? whole[0] : String(values[name])));
}

// The readout's two clauses, word for word attnkit.sharpness.summary: its two messages, in the words Python sent
// (`words.summaryRaw`, `words.summaryWeights`: attnkit.sharpness.words).
export function summary(m, words) {
  const values = {
    head_dim: m.headDim, scale: m.scaled ? `× 1/√${m.headDim}` : words.unscaled, raw: fixed2(m.rawScoreStd),
    root: fixed2(Math.sqrt(m.headDim)), seen: fixed2(m.scoreStd), top: fixed2(m.meanMaxWeight),
    entropy: fixed2(m.meanEntropy), uniform: fixed2(uniformEntropy(m.seqLen, m.causal)),
  };
  return [fill(words.summaryRaw, values), fill(words.summaryWeights, values)];
}
