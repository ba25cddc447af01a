// llama.cpp's prefill and decode speed on a GGUF file, through
// node-llama-cpp's prebuilt CPU backend, measured the way `loopd bench --raw`
// measures loopd: the same prompt token ids, the same thread count, greedy
// decode, best of `repeat` runs. Prints one JSON object.
//
//   node benches/peer-llamacpp.mjs MODEL.gguf PROMPT_TOKENS GEN_TOKENS THREADS REPEAT
import { getLlama } from "node-llama-cpp";

const [model, promptTokens, genTokens, threads, repeat] = process.argv.slice(2);
const [n, m, t, r] = [promptTokens, genTokens, threads, repeat].map(Number);

const llama = await getLlama({ gpu: false, build: "never" });
const loaded = await llama.loadModel({ modelPath: model, gpuLayers: 0 });
const vocab = loaded.fileInfo.metadata.tokenizer.ggml.tokens.length;
// The same ids `loopd bench --raw` feeds.
const prompt = Array.from({ length: n }, (_, i) => 200 + ((i * 7919) % (Math.min(vocab, 20000) - 200)));

let best = { prefill: 0, decode: 0 };
for (let run = 0; run < r; run++) {
    const context = await loaded.createContext({
        contextSize: n + m + 16, batchSize: n, threads: t, sequences: 1,
    });
    const sequence = context.getSequence();
    const tokens = sequence.evaluate(prompt, { temperature: 0 })[Symbol.asyncIterator]();
    // The prompt and the first token, as loopd's prefill figure counts them.
    let started = performance.now();
    await tokens.next();
    const prefill = n / ((performance.now() - started) / 1000);
    started = performance.now();
    let generated = 0;
    while (generated < m && !(await tokens.next()).done) generated++;
    const decode = generated / ((performance.now() - started) / 1000);
    await tokens.return?.();
    best = { prefill: Math.max(best.prefill, prefill), decode: Math.max(best.decode, decode) };
    await context.dispose();
}
console.log(JSON.stringify({
    peer: "llama.cpp (node-llama-cpp 3.22.1, CPU)",
    threads: t, prompt_tokens: n, gen_tokens: m,
    prefill_tok_s: Math.round(best.prefill * 10) / 10,
    decode_tok_s: Math.round(best.decode * 10) / 10,
}));
await loaded.dispose();
