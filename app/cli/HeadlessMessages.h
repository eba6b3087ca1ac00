// What Qt says on standard error under the headless commands: everything, but for the one message a
// machine without a desktop session (a cluster node, an ssh login) prints on every run. With no
// XDG_RUNTIME_DIR, Qt warns that it falls back to a directory of its own; the commands never use it,
// and the user can do nothing about it. Every other warning reaches the handler there was before.
#pragma once

#include <QString>
#include <QtGlobal>

namespace rankscope {

// Whether the message is that one: "QStandardPaths: XDG_RUNTIME_DIR not set, defaulting to '…'"
// (not Qt's warnings about a runtime directory that is set but wrong, which a user can fix).
bool isMissingRuntimeDirNotice(QtMsgType type, const QString &message);

// Installs the filter in front of the current message handler (once; later calls do nothing).
void filterHeadlessMessages();

} // namespace rankscope
