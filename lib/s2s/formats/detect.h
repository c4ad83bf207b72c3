// Model detection: looks at a path, picks the loader for its format and returns a ready Model.
// Says what it looked for when nothing matches.
#pragma once

#include <memory>
#include <string>

#include "s2s/formats/ct2.h"
#include "s2s/model/model.h"

namespace s2s::formats {

// path: a model folder (or a file inside one). ModelError when it cannot be loaded. `spm` names
// SentencePiece models for folders that lack them (CTranslate2); `packing` is what the linear
// layers compute in (a precision, ops/precision.h); `purpose` says whether files only translation needs may
// be missing (ct2.h).
std::shared_ptr<const model::Model> load_model(const std::string& path, const SpmPaths& spm = {},
                                               ops::Packing packing = {},
                                               LoadFor purpose = LoadFor::translation);

// The folder of the default model: $S2S_MODEL, else models/<name> next to the executable or in
// its install prefix (share/s2s/models/<name>). `executable`: the running binary's path
// (/proc/self/exe; argv[0] is only a name when found through PATH).
std::string default_model_path(const std::string& executable);

// The file `--config NAME` means: NAME itself when it exists or names a path, else a shipped
// config NAME.yml (configs/ in a build folder or checkout, share/s2s/configs when installed:
// `--config fast`). UsageError when there is none.
std::string config_path(const std::string& given, const std::string& executable);

}  // namespace s2s::formats
