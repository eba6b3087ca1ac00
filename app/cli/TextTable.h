// The plain-text tables the headless commands print (info's files and tensors, plan's ranks).
#pragma once

#include <QList>
#include <QStringList>
#include <QTextStream>

namespace rankscope {

// Rows of cells, every column but the last as wide as its widest cell, two spaces apart.
// Cells are made printable first: a file or tensor name must not drive the terminal.
void printTable(QTextStream &out, QList<QStringList> rows);

} // namespace rankscope
