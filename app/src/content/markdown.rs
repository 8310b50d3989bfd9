//! Markdown parts (`text/markdown`, `text/x-markdown`): GFM via pulldown-cmark, walked into an
//! owned tree and built into Leptos views. Never `inner_html`.
//!
//! Markdown rules: raw HTML (inline or block) is shown as escaped text; only `http:`, `https:`
//! and `mailto:` links become anchors, others show their text only; images are never loaded.

use leptos::prelude::*;
use pulldown_cmark::{Alignment, CodeBlockKind, Event, LinkType, Options, Parser, Tag};

use super::link::safe_link;

/// Element nesting kept as elements; deeper content is flattened into its parent, which bounds
/// the recursion of rendering and dropping the tree for hostile input like `>>>>…`.
const MAX_NESTING: usize = 48;

/// One rendered markdown node.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Node {
    /// Text, shown escaped.
    Text(String),
    /// An inline code span.
    Code(String),
    /// Raw HTML from the source, shown as escaped text (raw-HTML rule).
    RawHtml(String),
    /// A hard line break.
    Break,
    /// A thematic break.
    Rule,
    /// A task list checkbox, checked or not.
    Task(bool),
    /// An element and its children.
    Element(Element, Vec<Node>),
}

/// The elements the renderer builds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Element {
    Paragraph,
    Heading(u8),
    BlockQuote,
    /// A fenced or indented code block, with its language tag when it is a plain word.
    CodeBlock(Option<String>),
    HtmlBlock,
    /// A list; numbered from the start value, or bulleted.
    List(Option<u64>),
    Item,
    Table(Vec<Alignment>),
    TableHead,
    TableRow,
    TableCell,
    Emphasis,
    Strong,
    Strikethrough,
    Superscript,
    Subscript,
    /// A link: `Some(href)` when the scheme passed [`safe_link`], `None` for text only.
    Link(Option<String>),
    /// An image placeholder; the children are the alt text.
    Image,
    /// Anything else the parser may emit (footnotes, definition lists): a plain block.
    Block,
    /// Content past [`MAX_NESTING`]: its children join the parent.
    Flat,
}

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// Parses `source` into a tree; every event becomes inert data (see the module rules).
pub(crate) fn parse_markdown(source: &str) -> Vec<Node> {
    let mut stack: Vec<(Element, Vec<Node>)> = vec![(Element::Flat, Vec::new())];
    for event in Parser::new_ext(source, options()) {
        match event {
            Event::Start(tag) => {
                let element = if stack.len() > MAX_NESTING {
                    Element::Flat
                } else {
                    element_of(tag)
                };
                stack.push((element, Vec::new()));
            }
            Event::End(_) => close(&mut stack),
            Event::Text(t) => push_text(&mut stack, &t),
            Event::SoftBreak => push_text(&mut stack, "\n"),
            Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                push(&mut stack, Node::Code(t.into_string()));
            }
            Event::Html(t) | Event::InlineHtml(t) => push(&mut stack, Node::RawHtml(t.into_string())),
            Event::FootnoteReference(label) => push_text(&mut stack, &format!("[^{label}]")),
            Event::HardBreak => push(&mut stack, Node::Break),
            Event::Rule => push(&mut stack, Node::Rule),
            Event::TaskListMarker(checked) => push(&mut stack, Node::Task(checked)),
        }
    }
    // Start and end events are balanced; this only guards against a parser bug.
    while stack.len() > 1 {
        close(&mut stack);
    }
    stack.pop().map(|(_, nodes)| nodes).unwrap_or_default()
}

fn element_of(tag: Tag<'_>) -> Element {
    match tag {
        Tag::Paragraph => Element::Paragraph,
        Tag::Heading { level, .. } => Element::Heading(level as u8),
        Tag::BlockQuote(_) => Element::BlockQuote,
        Tag::CodeBlock(CodeBlockKind::Fenced(info)) => Element::CodeBlock(language(&info)),
        Tag::CodeBlock(CodeBlockKind::Indented) => Element::CodeBlock(None),
        Tag::HtmlBlock => Element::HtmlBlock,
        Tag::List(start) => Element::List(start),
        Tag::Item => Element::Item,
        Tag::Table(alignments) => Element::Table(alignments),
        Tag::TableHead => Element::TableHead,
        Tag::TableRow => Element::TableRow,
        Tag::TableCell => Element::TableCell,
        Tag::Emphasis => Element::Emphasis,
        Tag::Strong => Element::Strong,
        Tag::Strikethrough => Element::Strikethrough,
        Tag::Superscript => Element::Superscript,
        Tag::Subscript => Element::Subscript,
        Tag::Link {
            link_type: LinkType::Email,
            dest_url,
            ..
        } => Element::Link(safe_link(&format!("mailto:{dest_url}")).map(str::to_owned)),
        Tag::Link { dest_url, .. } => Element::Link(safe_link(&dest_url).map(str::to_owned)),
        Tag::Image { .. } => Element::Image,
        Tag::FootnoteDefinition(_)
        | Tag::DefinitionList
        | Tag::DefinitionListTitle
        | Tag::DefinitionListDefinition
        | Tag::MetadataBlock(_) => Element::Block,
    }
}

/// The first word of a fence's info string, if it is a plain language name.
fn language(info: &str) -> Option<String> {
    let word = info.split_whitespace().next()?;
    word.chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+' | '#' | '.'))
        .then(|| word.to_owned())
}

fn close(stack: &mut Vec<(Element, Vec<Node>)>) {
    if stack.len() < 2 {
        return;
    }
    let Some((element, children)) = stack.pop() else {
        return;
    };
    match element {
        Element::Flat => {
            for child in children {
                push(stack, child);
            }
        }
        element => push(stack, Node::Element(element, children)),
    }
}

fn push(stack: &mut [(Element, Vec<Node>)], node: Node) {
    let Some((_, siblings)) = stack.last_mut() else {
        return;
    };
    match (siblings.last_mut(), node) {
        (Some(Node::Text(last)), Node::Text(text)) => last.push_str(&text),
        (_, node) => siblings.push(node),
    }
}

fn push_text(stack: &mut [(Element, Vec<Node>)], text: &str) {
    push(stack, Node::Text(text.to_owned()));
}

/// The text of nodes with all markup dropped; for image alt text and code blocks.
pub(crate) fn plain_text(nodes: &[Node]) -> String {
    let mut out = String::new();
    // Depth-first without recursion; each child list is pushed reversed to keep the order.
    let mut stack: Vec<&Node> = nodes.iter().rev().collect();
    while let Some(node) = stack.pop() {
        match node {
            Node::Text(t) | Node::Code(t) | Node::RawHtml(t) => out.push_str(t),
            Node::Break => out.push('\n'),
            Node::Element(_, children) => stack.extend(children.iter().rev()),
            Node::Rule | Node::Task(_) => {}
        }
    }
    out
}

/// A markdown part as elements; used by the part view.
#[component]
pub fn MarkdownView(source: String) -> impl IntoView {
    view! { <div class="content-markdown">{render_nodes(parse_markdown(&source))}</div> }
}

fn render_nodes(nodes: Vec<Node>) -> Vec<AnyView> {
    nodes.into_iter().map(render_node).collect()
}

fn render_node(node: Node) -> AnyView {
    match node {
        Node::Text(t) => t.into_any(),
        Node::Code(t) => view! { <code>{t}</code> }.into_any(),
        Node::RawHtml(t) => view! { <code class="content-md-html">{t}</code> }.into_any(),
        Node::Break => view! { <br/> }.into_any(),
        Node::Rule => view! { <hr/> }.into_any(),
        Node::Task(checked) => {
            view! { <input type="checkbox" class="content-md-task" disabled=true checked=checked/> }
                .into_any()
        }
        Node::Element(element, children) => render_element(element, children),
    }
}

fn render_element(element: Element, children: Vec<Node>) -> AnyView {
    match element {
        Element::CodeBlock(language) => {
            let class = language.map(|l| format!("language-{l}"));
            let code = plain_text(&children);
            view! { <pre class="content-code"><code class=class>{code}</code></pre> }.into_any()
        }
        Element::HtmlBlock => {
            view! { <pre class="content-code content-md-html">{plain_text(&children)}</pre> }.into_any()
        }
        Element::Image => {
            let alt = plain_text(&children);
            view! { <ImagePlaceholder alt=alt/> }.into_any()
        }
        Element::Table(alignments) => render_table(&alignments, children),
        Element::Link(Some(href)) => {
            let children = render_nodes(children);
            view! { <a href=href target="_blank" rel="noopener noreferrer">{children}</a> }.into_any()
        }
        Element::Link(None) | Element::Flat => render_nodes(children).into_any(),
        element => render_simple(element, render_nodes(children)),
    }
}

/// Elements that only wrap their children.
fn render_simple(element: Element, children: Vec<AnyView>) -> AnyView {
    match element {
        Element::Paragraph => view! { <p>{children}</p> }.into_any(),
        Element::Heading(1) => view! { <h1>{children}</h1> }.into_any(),
        Element::Heading(2) => view! { <h2>{children}</h2> }.into_any(),
        Element::Heading(3) => view! { <h3>{children}</h3> }.into_any(),
        Element::Heading(4) => view! { <h4>{children}</h4> }.into_any(),
        Element::Heading(5) => view! { <h5>{children}</h5> }.into_any(),
        Element::Heading(_) => view! { <h6>{children}</h6> }.into_any(),
        Element::BlockQuote => view! { <blockquote>{children}</blockquote> }.into_any(),
        Element::List(Some(start)) => view! { <ol start=start.to_string()>{children}</ol> }.into_any(),
        Element::List(None) => view! { <ul>{children}</ul> }.into_any(),
        Element::Item => view! { <li>{children}</li> }.into_any(),
        Element::Emphasis => view! { <em>{children}</em> }.into_any(),
        Element::Strong => view! { <strong>{children}</strong> }.into_any(),
        Element::Strikethrough => view! { <del>{children}</del> }.into_any(),
        Element::Superscript => view! { <sup>{children}</sup> }.into_any(),
        Element::Subscript => view! { <sub>{children}</sub> }.into_any(),
        // Cells and rows outside a table only appear after flattening; keep their content.
        _ => view! { <div>{children}</div> }.into_any(),
    }
}

/// A GFM table: the head row, then body rows, cells aligned as the delimiter row says.
fn render_table(alignments: &[Alignment], children: Vec<Node>) -> AnyView {
    let mut head = Vec::new();
    let mut body = Vec::new();
    for child in children {
        match child {
            Node::Element(Element::TableHead, cells) => head.push(render_row(alignments, cells, true)),
            Node::Element(Element::TableRow, cells) => body.push(render_row(alignments, cells, false)),
            // Only reachable past MAX_NESTING; a cell keeps it valid inside the table.
            other => body.push(view! { <tr><td>{render_node(other)}</td></tr> }.into_any()),
        }
    }
    view! {
        <div class="content-table-scroll">
            <table class="content-table">
                <thead>{head}</thead>
                <tbody>{body}</tbody>
            </table>
        </div>
    }
    .into_any()
}

fn render_row(alignments: &[Alignment], cells: Vec<Node>, head: bool) -> AnyView {
    let cells: Vec<AnyView> = cells
        .into_iter()
        .enumerate()
        .map(|(i, cell)| {
            // Classes, not inline styles, so a strict style-src CSP still holds.
            let class = match alignments.get(i) {
                Some(Alignment::Left) => Some("content-align-left"),
                Some(Alignment::Center) => Some("content-align-center"),
                Some(Alignment::Right) => Some("content-align-right"),
                _ => None,
            };
            let content = match cell {
                Node::Element(Element::TableCell, content) => render_nodes(content),
                other => vec![render_node(other)],
            };
            if head {
                view! { <th scope="col" class=class>{content}</th> }.into_any()
            } else {
                view! { <td class=class>{content}</td> }.into_any()
            }
        })
        .collect();
    view! { <tr>{cells}</tr> }.into_any()
}

/// What a markdown image becomes: its alt text and a note, never a request (image rule).
#[component]
fn ImagePlaceholder(alt: String) -> impl IntoView {
    let alt = if alt.trim().is_empty() {
        "image".to_owned()
    } else {
        alt
    };
    let label = alt.clone();
    view! {
        <span class="content-image-placeholder" role="img" aria-label=label>
            <span class="content-image-alt">{alt}</span>
            " (remote image not loaded)"
        </span>
    }
}

#[cfg(test)]
mod tests;
