// `rankscope export SOURCE --figure NAME --out FILE`: the GUI's figures, rendered headless by the
// same views, from a checkpoint folder (analysed first if needed) or a results file.
#pragma once

#include <QStringList>

namespace rankscope {
int runExportCommand(const QStringList &arguments);
}
