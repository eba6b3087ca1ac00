// `rankscope info FOLDER`: the checkpoints found, and for one of them every 2-D tensor with the
// layer and type it is assigned or why it is not analysed.
#pragma once

#include <QStringList>

namespace rankscope {
int runInfoCommand(const QStringList &arguments);
}
