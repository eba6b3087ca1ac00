// The headless side of `rankscope`: subcommands that need no display.
#pragma once

#include <QStringList>

namespace rankscope {

// True when argv names a subcommand (analyze, info, …) rather than paths for the GUI.
bool isHeadlessInvocation(int argc, char **argv);
int runHeadless(int argc, char **argv);

} // namespace rankscope
