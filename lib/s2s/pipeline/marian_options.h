// Every option of marian-decoder and marian-scorer (Marian's src/common/config_parser.cpp: the
// general, model, translation or scoring, devices, batching, input-length and TSV groups; the
// options of training alone left out, as marian-decoder refuses them too) and what s2s does with
// each. The CLI registers the ignored and refused ones (app/options.h), a --config file is read by
// it (settings.h), and docs/marian-options.md is the same list for readers (a test keeps the two
// equal).
#pragma once

#include <string>
#include <vector>

namespace s2s::pipeline {

enum class MarianUse {
  supported,  // s2s has it: the same flag, or an alias of an s2s option (`what` names it)
  ignored,    // does not apply to s2s on the CPU: accepted, and one note lists what was ignored
  refused,    // a usage error that says why (and what to use instead, if anything)
};

// Which Marian tools have the option.
enum MarianTool : unsigned { kDecoder = 1, kScorer = 2, kDecoderAndScorer = 3 };

struct MarianOption {
  const char* name;        // the long flag without "--", and the YAML key
  const char* short_flag;  // e.g. "-w", or ""
  unsigned tools;          // MarianTool bits
  MarianUse use;
  bool takes_values;       // false: a switch (Marian's bool options)
  const char* what;        // supported: the s2s option; ignored or refused: why
};

const std::vector<MarianOption>& marian_options();

// The option of `tool` called `name` (without "--"), or nullptr.
const MarianOption* find_marian_option(const std::string& name, MarianTool tool);

// "supported", "ignored", "refused".
const char* marian_use_name(MarianUse use);

}  // namespace s2s::pipeline
