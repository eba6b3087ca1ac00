// `rankscope analyze FOLDER`: every metric of every typed matrix, as CSV or JSON.
#pragma once

#include <QStringList>

namespace rankscope {
int runAnalyzeCommand(const QStringList &arguments);
}
