#include "WindowTheme.h"

#include "figures/ViewState.h"

#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QPainter>
#include <QPainterPath>
#include <QProxyStyle>
#include <QStyleOption>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

namespace rankscope {

namespace {

constexpr const char *kSettingsKey = "view/theme";

QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2B, 0x2D, 0x30), base(0x1E, 0x1F, 0x22), text(0xE6, 0xE6, 0xE6), disabled(0x80, 0x80, 0x80);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, base);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xFF, 0x6B, 0x6B));
    p.setColor(QPalette::Light, window.lighter(150));
    p.setColor(QPalette::Midlight, window.lighter(125));
    p.setColor(QPalette::Mid, window.darker(120));
    p.setColor(QPalette::Dark, window.darker(160));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::Highlight, QColor(0x35, 0x84, 0xE4));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6C, 0xB4, 0xFF));
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    return p;
}

// Fusion outlines check boxes and radio buttons in the window colour darkened, which on a dark
// window is all but invisible (1.1:1): an unchecked box vanished. This style draws Fusion, with
// each such indicator framed in the palette's placeholder grey (4:1 on the dark base) when the
// palette is dark.
class VisibleIndicatorStyle : public QProxyStyle {
public:
    using QProxyStyle::QProxyStyle;
    void drawPrimitive(PrimitiveElement element, const QStyleOption *option, QPainter *painter, const QWidget *widget) const override
    {
        QProxyStyle::drawPrimitive(element, option, painter, widget);
        const bool indicator = element == PE_IndicatorCheckBox || element == PE_IndicatorRadioButton;
        if (!indicator || option->palette.color(QPalette::Window).lightness() >= 128)
            return;
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing, true);
        painter->setBrush(Qt::NoBrush);
        painter->setPen(QPen(option->palette.color(QPalette::PlaceholderText), 1));
        const QRectF frame = QRectF(option->rect).adjusted(0.5, 0.5, -1.5, -1.5);
        if (element == PE_IndicatorRadioButton)
            painter->drawEllipse(frame);
        else
            painter->drawRect(frame);
        painter->restore();
    }
};

QString choiceName(WindowTheme::Choice choice)
{
    switch (choice) {
    case WindowTheme::Choice::Light: return QStringLiteral("light");
    case WindowTheme::Choice::Dark: return QStringLiteral("dark");
    case WindowTheme::Choice::System: break;
    }
    return QStringLiteral("system");
}

} // namespace

WindowTheme::WindowTheme(ViewState *state, QObject *parent)
    : QObject(parent), m_state(state), m_systemPalette(QApplication::palette()),
      // A desktop in a dark theme gives a dark window background; there is no other portable sign in Qt 6.4.
      m_systemDark(m_systemPalette.color(QPalette::Window).lightness() < 128)
{
}

void WindowTheme::restore()
{
    const QString name = QSettings().value(QLatin1String(kSettingsKey)).toString();
    apply(name == QLatin1String("dark") ? Choice::Dark : name == QLatin1String("light") ? Choice::Light : Choice::System);
}

bool WindowTheme::isDark() const
{
    return m_choice == Choice::Dark || (m_choice == Choice::System && m_systemDark);
}

void WindowTheme::apply(Choice choice)
{
    m_choice = choice;
    const bool dark = isDark();
    if (dark == m_systemDark) {
        QApplication::setPalette(m_systemPalette);
    } else {
        // Against the desktop's look: Fusion draws any palette faithfully, native styles may not.
        if (!dynamic_cast<VisibleIndicatorStyle *>(QApplication::style()))
            QApplication::setStyle(new VisibleIndicatorStyle(QStyleFactory::create(QStringLiteral("Fusion"))));
        QApplication::setPalette(dark ? darkPalette() : QApplication::style()->standardPalette());
    }
    m_state->setDarkTheme(dark);
    QSettings().setValue(QLatin1String(kSettingsKey), choiceName(choice));
}

QIcon WindowTheme::playIcon(bool pause, const QPalette &palette)
{
    QIcon icon;
    for (const int size : {16, 24, 32}) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(Qt::NoPen);
        painter.setBrush(palette.color(QPalette::ButtonText));
        const double s = size / 16.0;
        if (pause) {
            painter.drawRect(QRectF(3.5 * s, 3 * s, 3 * s, 10 * s));
            painter.drawRect(QRectF(9.5 * s, 3 * s, 3 * s, 10 * s));
        } else {
            QPainterPath triangle;
            triangle.moveTo(4 * s, 2.5 * s);
            triangle.lineTo(13 * s, 8 * s);
            triangle.lineTo(4 * s, 13.5 * s);
            triangle.closeSubpath();
            painter.drawPath(triangle);
        }
        painter.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}

void WindowTheme::addMenu(QMenu *menu)
{
    QMenu *themes = menu->addMenu(tr("&Theme"));
    auto *group = new QActionGroup(themes);
    const QList<std::pair<Choice, QString>> choices = {
        {Choice::System, tr("Follow the &desktop")}, {Choice::Light, tr("&Light")}, {Choice::Dark, tr("&Dark")}};
    for (const auto &[choice, label] : choices) {
        QAction *action = themes->addAction(label, this, [this, c = choice] { apply(c); });
        action->setCheckable(true);
        group->addAction(action);
        connect(themes, &QMenu::aboutToShow, action, [this, action, c = choice] { action->setChecked(m_choice == c); });
    }
}

} // namespace rankscope
