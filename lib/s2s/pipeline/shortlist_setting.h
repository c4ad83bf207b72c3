// Which shortlist a translation run uses (TranslateSettings::shortlist, model/shortlist.h): the
// file given with its arguments, else the model folder's own (formats::folder_shortlist), or
// none with "off". A model that a shortlist will restrict must be loaded keeping its output rows.
#pragma once

#include <string>

#include "s2s/model/model.h"
#include "s2s/model/shortlist.h"
#include "s2s/ops/precision.h"
#include "s2s/pipeline/settings.h"
#include "s2s/search/prefix.h"

namespace s2s::pipeline {

// The packing to load the model of `model_folder` with for `settings`: their precision, and the
// output rows kept when a shortlist will be used.
ops::Packing model_packing(const TranslateSettings& settings, const std::string& model_folder);

// Reads the run's shortlist for `model` into settings.translate.shortlist (null: none).
// UsageError for bad arguments, ModelError for a bad file (naming it).
void attach_shortlist(const model::Model& model, const std::string& model_folder,
                      TranslateSettings& settings);

// The candidates of a batch of encoded `sources` (</s> included) with target `prefixes`.
// CTranslate2 matches its map's keys on the tokens its users give, which hold the </s> the
// encoder reads only in the families whose tokenizers write it (NLLB-200, M2M-100).
std::vector<std::int32_t> batch_candidates(const model::Model& model,
                                           const model::Shortlist& shortlist,
                                           const std::vector<std::vector<std::int32_t>>& sources,
                                           const search::Prefixes& prefixes);

}  // namespace s2s::pipeline
