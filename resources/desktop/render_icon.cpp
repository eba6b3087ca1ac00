// Build-time tool: renders the application icon's SVG to the PNG sizes a desktop's icon theme
// looks up (hicolor NxN), so the PNGs always match the SVG and never go into git.
//   render_icon ICON.svg OUT_DIR SIZE…   writes OUT_DIR/SIZE.png for each SIZE
#include <QDir>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>
#include <QTextStream>

int main(int argc, char **argv)
{
    // Runs during the build, where there may be no display.
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    QTextStream err(stderr);
    const QStringList arguments = QGuiApplication::arguments();
    if (arguments.size() < 4) {
        err << "usage: render_icon ICON.svg OUT_DIR SIZE…\n";
        return 1;
    }
    QSvgRenderer renderer(arguments.at(1));
    if (!renderer.isValid()) {
        err << arguments.at(1) << ": not a valid SVG\n";
        return 1;
    }
    const QDir outDir(arguments.at(2));
    if (!outDir.mkpath(QStringLiteral("."))) {
        err << arguments.at(2) << ": cannot create the folder\n";
        return 1;
    }
    for (const QString &sizeText : arguments.mid(3)) {
        bool ok = false;
        const int size = sizeText.toInt(&ok);
        if (!ok || size < 1 || size > 4096) {
            err << sizeText << ": not an icon size\n";
            return 1;
        }
        QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        renderer.render(&painter);
        painter.end();
        const QString path = outDir.filePath(sizeText + QStringLiteral(".png"));
        if (!image.save(path, "PNG")) {
            err << path << ": cannot write\n";
            return 1;
        }
    }
    return 0;
}
