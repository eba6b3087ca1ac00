#include "HeadlessMessages.h"

#include <cstdio>

namespace rankscope {

namespace {

QtMessageHandler g_previous = nullptr;
bool g_installed = false;

void filterMessage(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (isMissingRuntimeDirNotice(type, message))
        return;
    if (g_previous) {
        g_previous(type, context, message);
        return;
    }
    std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, message)));
}

} // namespace

bool isMissingRuntimeDirNotice(QtMsgType type, const QString &message)
{
    return type == QtWarningMsg && message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR not set"));
}

void filterHeadlessMessages()
{
    if (g_installed)
        return;
    g_installed = true;
    g_previous = qInstallMessageHandler(filterMessage);
}

} // namespace rankscope
