// Help ▸ About RankScope: the version and licence, and the libraries and BLAS the program runs
// with, as loaded at run time, so a bug report can quote them.
#pragma once

#include <QList>
#include <QString>

class QWidget;

namespace rankscope {

struct LibraryInUse {
    QString name;    // "Qt", "QCustomPlot", "Eigen", "HDF5", "BLAS", "LAPACK"
    QString version; // what the library reports about itself, or what the build saw; may hold '\n'
};

// In the order the About box lists them.
QList<LibraryInUse> librariesInUse();
// The About box's rich text: name, version, what it does, licence, libraries.
QString aboutRankScopeHtml();
void showAboutRankScope(QWidget *parent);

} // namespace rankscope
