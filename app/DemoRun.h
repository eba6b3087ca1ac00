// Where the bundled demo run (a real nanoGPT training run) is: installed beside the executable
// (PREFIX/share/rankscope/demo), or, for a binary run from its build tree, in the source tree.
#pragma once

#include <QString>

namespace rankscope {
QString demoRunFolder();
}
