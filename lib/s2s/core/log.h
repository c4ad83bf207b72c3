// Messages to stderr. stdout carries only results, so everything human goes through here.
#pragma once

#include <string>

namespace s2s::log {

enum class Level { quiet, warning, info };

void set_level(Level level);
Level level();

void warning(const std::string& message);  // "s2s: warning: <message>"
void info(const std::string& message);     // "s2s: <message>"

// True when stderr is a terminal: only then is a progress line shown.
bool stderr_is_terminal();

}  // namespace s2s::log
