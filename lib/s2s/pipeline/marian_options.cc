#include "s2s/pipeline/marian_options.h"

namespace s2s::pipeline {
namespace {

constexpr unsigned D = kDecoder, S = kScorer, DS = kDecoderAndScorer;
constexpr MarianUse kSupported = MarianUse::supported, kIgnored = MarianUse::ignored,
                    kRefused = MarianUse::refused;
constexpr bool kValues = true, kSwitch = false;

// Why the model options are ignored: Marian too takes them from the model unless
// --ignore-model-config.
constexpr const char* kArchitecture = "the architecture comes from the model's own files";
constexpr const char* kNoGpu = "no GPU: s2s runs on the CPU";
constexpr const char* kQuantization =
    "Marian's on-line quantization; s2s quantizes at load with --precision int8";

// In config_parser.cpp's order: general, model, translation, scoring, devices, batching, input
// length, TSV.
const std::vector<MarianOption> kOptions = {
    {"authors", "", DS, kRefused, kSwitch, "Marian's author list; not part of s2s"},
    {"cite", "", DS, kRefused, kSwitch, "Marian's citation; not part of s2s"},
    {"build-info", "", DS, kRefused, kValues, "use s2s --version"},
    {"config", "-c", DS, kSupported, kValues,
     "--config/-c FILE: s2s keys and Marian's (these rows) apply as the flags do"},
    {"workspace", "-w", DS, kIgnored, kValues, "s2s allocates CPU memory as it needs it"},
    {"log", "", DS, kSupported, kValues, "--log FILE"},
    {"log-level", "", DS, kIgnored, kValues, "s2s has warnings and errors only (--quiet)"},
    {"log-time-zone", "", DS, kIgnored, kValues, "s2s's messages carry no time"},
    {"quiet", "", DS, kSupported, kSwitch, "--quiet"},
    {"quiet-translation", "", DS, kSupported, kSwitch, "alias of --quiet"},
    {"seed", "", D, kSupported, kValues, "--seed (sampling)"},
    {"seed", "", S, kIgnored, kValues, "scoring draws nothing at random"},
    {"check-nan", "", DS, kIgnored, kSwitch, "a training diagnostic"},
    {"interpolate-env-vars", "", DS, kIgnored, kSwitch,
     "s2s does not expand ${VAR} in paths (the shell does on the command line)"},
    {"relative-paths", "", DS, kIgnored, kSwitch,
     "s2s takes paths as given; in --config it places `models` relative to the file, as in "
     "Marian (and is then not in the note)"},
    {"dump-config", "", DS, kRefused, kValues, "s2s info shows the model's settings"},
    {"version", "", DS, kSupported, kSwitch, "s2s --version"},
    {"help", "-h", DS, kSupported, kSwitch, "--help/-h"},
    {"models", "-m", D, kSupported, kValues,
     "-m/--models: one model (a file in its folder, or the folder); ensembles are refused; in "
     "--config followed when -m is not given"},
    {"model", "-m", S, kSupported, kValues, "-m/--model"},
    {"model-mmap", "", D, kIgnored, kSwitch, "s2s reads the model into memory once"},
    {"ignore-model-config", "", DS, kIgnored, kSwitch, kArchitecture},
    {"type", "", DS, kIgnored, kValues, kArchitecture},
    {"dim-vocabs", "", DS, kIgnored, kValues, kArchitecture},
    {"dim-emb", "", DS, kIgnored, kValues, kArchitecture},
    {"factors-dim-emb", "", DS, kIgnored, kValues, kArchitecture},
    {"factors-combine", "", DS, kIgnored, kValues, kArchitecture},
    {"lemma-dependency", "", DS, kIgnored, kValues, kArchitecture},
    {"lemma-dim-emb", "", DS, kIgnored, kValues, kArchitecture},
    {"dim-rnn", "", DS, kIgnored, kValues, kArchitecture},
    {"enc-type", "", DS, kIgnored, kValues, kArchitecture},
    {"enc-cell", "", DS, kIgnored, kValues, kArchitecture},
    {"enc-cell-depth", "", DS, kIgnored, kValues, kArchitecture},
    {"enc-depth", "", DS, kIgnored, kValues, kArchitecture},
    {"dec-cell", "", DS, kIgnored, kValues, kArchitecture},
    {"dec-cell-base-depth", "", DS, kIgnored, kValues, kArchitecture},
    {"dec-cell-high-depth", "", DS, kIgnored, kValues, kArchitecture},
    {"dec-depth", "", DS, kIgnored, kValues, kArchitecture},
    {"skip", "", DS, kIgnored, kSwitch, kArchitecture},
    {"layer-normalization", "", DS, kIgnored, kSwitch, kArchitecture},
    {"right-left", "", DS, kIgnored, kSwitch, kArchitecture},
    {"input-types", "", DS, kIgnored, kValues, "s2s reads text, one sequence per line"},
    {"best-deep", "", DS, kIgnored, kSwitch, kArchitecture},
    {"tied-embeddings", "", DS, kIgnored, kSwitch, kArchitecture},
    {"tied-embeddings-src", "", DS, kIgnored, kSwitch, kArchitecture},
    {"tied-embeddings-all", "", DS, kIgnored, kSwitch, kArchitecture},
    {"output-omit-bias", "", DS, kIgnored, kSwitch, kArchitecture},
    {"transformer-heads", "", DS, kIgnored, kValues, kArchitecture},
    {"transformer-no-projection", "", DS, kIgnored, kSwitch, kArchitecture},
    {"transformer-rnn-projection", "", DS, kIgnored, kSwitch, kArchitecture},
    {"transformer-pool", "", DS, kIgnored, kSwitch, kArchitecture},
    {"transformer-dim-ffn", "", DS, kIgnored, kValues, kArchitecture},
    {"transformer-decoder-dim-ffn", "", DS, kIgnored, kValues, kArchitecture},
    {"transformer-ffn-depth", "", DS, kIgnored, kValues, kArchitecture},
    {"transformer-decoder-ffn-depth", "", DS, kIgnored, kValues, kArchitecture},
    {"transformer-ffn-activation", "", DS, kIgnored, kValues, kArchitecture},
    {"transformer-dim-aan", "", DS, kIgnored, kValues, kArchitecture},
    {"transformer-aan-depth", "", DS, kIgnored, kValues, kArchitecture},
    {"transformer-aan-activation", "", DS, kIgnored, kValues, kArchitecture},
    {"transformer-aan-nogate", "", DS, kIgnored, kSwitch, kArchitecture},
    {"transformer-decoder-autoreg", "", DS, kIgnored, kValues, kArchitecture},
    {"transformer-tied-layers", "", DS, kIgnored, kValues, kArchitecture},
    {"transformer-guided-alignment-layer", "", DS, kIgnored, kValues,
     "read from the model's own config (s2s info shows it)"},
    {"transformer-preprocess", "", DS, kIgnored, kValues, kArchitecture},
    {"transformer-postprocess-emb", "", DS, kIgnored, kValues, kArchitecture},
    {"transformer-postprocess", "", DS, kIgnored, kValues, kArchitecture},
    {"transformer-postprocess-top", "", DS, kIgnored, kValues, kArchitecture},
    {"transformer-train-position-embeddings", "", DS, kIgnored, kSwitch, kArchitecture},
    {"transformer-depth-scaling", "", DS, kIgnored, kSwitch, kArchitecture},
    {"bert-mask-symbol", "", DS, kIgnored, kValues, kArchitecture},
    {"bert-sep-symbol", "", DS, kIgnored, kValues, kArchitecture},
    {"bert-class-symbol", "", DS, kIgnored, kValues, kArchitecture},
    {"bert-masking-fraction", "", DS, kIgnored, kValues, kArchitecture},
    {"bert-train-type-embeddings", "", DS, kIgnored, kValues, kArchitecture},
    {"bert-type-vocab-size", "", DS, kIgnored, kValues, kArchitecture},
    {"char-stride", "", DS, kIgnored, kValues, kArchitecture},
    {"char-highway", "", DS, kIgnored, kValues, kArchitecture},
    {"char-conv-filters-num", "", DS, kIgnored, kValues, kArchitecture},
    {"char-conv-filters-widths", "", DS, kIgnored, kValues, kArchitecture},
    {"input", "-i", D, kSupported, kValues, "-i/--input: one file (several files: cat them)"},
    {"output", "-o", DS, kSupported, kValues, "-o/--output"},
    {"vocabs", "-v", DS, kRefused, kValues,
     "s2s takes the vocabularies from the model folder; in --config ignored with the note"},
    {"beam-size", "-b", D, kSupported, kValues, "-b/--beam-size"},
    {"normalize", "-n", DS, kSupported, kValues, "-n/--normalize"},
    {"max-length-factor", "", D, kSupported, kValues, "--max-length-factor"},
    {"word-penalty", "", D, kSupported, kValues, "--word-penalty"},
    {"allow-unk", "", D, kSupported, kSwitch, "--allow-unk"},
    {"allow-special", "", D, kRefused, kSwitch, "not supported: s2s never prints special symbols"},
    {"n-best", "", D, kSupported, kSwitch, "--n-best"},
    {"n-best", "", S, kSupported, kValues,
     "--n-best FILE: the list to rescore is its value (needs --source)"},
    {"alignment", "", DS, kSupported, kValues, "--alignment"},
    {"force-decode", "", D, kRefused, kSwitch,
     "use --prefix (source<TAB>prefix lines) or --prefix-file"},
    {"word-scores", "", DS, kSupported, kSwitch, "--word-scores"},
    {"stat-freq", "", D, kIgnored, kValues,
     "s2s shows the speed on its progress line and in the final summary"},
    {"no-spm-decode", "", D, kSupported, kSwitch, "--no-spm-decode"},
    {"fp16", "", DS, kRefused, kSwitch,
     "float16 is not supported on the CPU: --precision bfloat16 or int8"},
    {"precision", "", DS, kSupported, kValues,
     "--precision float32, bfloat16 or int8 (Marian's float16 is refused)"},
    {"skip-cost", "", D, kIgnored, kSwitch, "s2s's scores cost nothing extra"},
    {"shortlist", "", D, kSupported, kValues,
     "--shortlist FILE [first best threshold] (text) or FILE [check] (binary), as Marian reads "
     "them"},
    {"weights", "", D, kRefused, kValues,
     "s2s decodes with one model: ensembles are not supported"},
    {"output-sampling", "", D, kSupported, kValues,
     "alias of --sampling (full, topk K, topp P; the temperature is --temperature)"},
    {"output-approx-knn", "", D, kRefused, kValues,
     "not supported: s2s scores the whole vocabulary exactly"},
    {"optimize", "", DS, kIgnored, kSwitch, kQuantization},
    {"gemm-type", "-g", DS, kIgnored, kValues, kQuantization},
    {"quantize-range", "", DS, kIgnored, kValues, kQuantization},
    {"no-reload", "", S, kIgnored, kSwitch, "s2s score always reads the model"},
    {"train-sets", "-t", S, kSupported, kValues, "-t SOURCE TARGET (--source, --target)"},
    {"n-best-feature", "", S, kSupported, kValues, "--n-best-feature"},
    {"summary", "", S, kSupported, kValues, "--summary"},
    {"devices", "-d", DS, kIgnored, kValues, kNoGpu},
    {"num-devices", "", DS, kIgnored, kValues, kNoGpu},
    {"cpu-threads", "", DS, kSupported, kValues, "alias of --threads"},
    {"mini-batch", "", DS, kSupported, kValues,
     "alias of --batch-size; ignored in a Marian decoder config (one that names `models`)"},
    {"mini-batch-words", "", DS, kSupported, kValues,
     "alias of --batch-tokens; ignored in a Marian decoder config"},
    {"maxi-batch", "", DS, kSupported, kValues, "--maxi-batch; ignored in a Marian decoder config"},
    {"maxi-batch-sort", "", D, kSupported, kValues,
     "src or none: s2s sorts by source length, the output is the same"},
    {"maxi-batch-sort", "", S, kIgnored, kValues,
     "s2s score sorts each window by target length; the scores are the same"},
    {"data-threads", "", DS, kIgnored, kValues, "s2s reads its input on one thread"},
    {"max-length", "", DS, kSupported, kValues, "--max-length"},
    {"max-length-crop", "", D, kSupported, kSwitch, "alias of --long-lines truncate"},
    {"max-length-crop", "", S, kIgnored, kSwitch,
     "s2s score truncates a side over --max-length (with a warning) unless --long-lines fail"},
    {"tsv", "", D, kSupported, kSwitch,
     "--tsv: the input is tab-separated, its first field "
     "is translated"},
    {"tsv", "", S, kIgnored, kSwitch, "s2s score -i reads source<TAB>target lines"},
    {"tsv-fields", "", D, kSupported, kValues,
     "--tsv-fields N: with --tsv, each line must have N fields"},
    {"tsv-fields", "", S, kIgnored, kValues, "s2s score -i reads two fields"},
};

}  // namespace

const std::vector<MarianOption>& marian_options() { return kOptions; }

const MarianOption* find_marian_option(const std::string& name, MarianTool tool) {
  for (const MarianOption& option : kOptions)
    if ((option.tools & tool) != 0 && name == option.name) return &option;
  return nullptr;
}

const char* marian_use_name(MarianUse use) {
  switch (use) {
    case MarianUse::supported:
      return "supported";
    case MarianUse::ignored:
      return "ignored";
    case MarianUse::refused:
      return "refused";
  }
  return "refused";
}

}  // namespace s2s::pipeline
