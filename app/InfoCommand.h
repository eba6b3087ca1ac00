// `rankscope info FOLDER`: every file and folder with what it was taken for and why, the
// checkpoints found (step, where the step came from, config.json used), and for one of them every
// 2-D tensor with the layer and type it is assigned or why it is not analysed.
#pragma once

#include <QStringList>

namespace rankscope {
int runInfoCommand(const QStringList &arguments);
}
