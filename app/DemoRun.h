// Where the bundled demo run (a real nanoGPT training run) is: beside an installed binary, or
// in the source tree the binary was built from.
#pragma once

#include <QString>

namespace rankscope {
QString demoRunFolder();
}
