//! Tree tests for the markdown renderer; the rendered-HTML checks are in `render_tests`.

use proptest::prelude::*;

use super::*;

fn text(s: &str) -> Node {
    Node::Text(s.to_owned())
}

fn el(element: Element, children: Vec<Node>) -> Node {
    Node::Element(element, children)
}

fn para(children: Vec<Node>) -> Vec<Node> {
    vec![el(Element::Paragraph, children)]
}

/// Element depth of a tree, computed without recursion.
fn depth(nodes: &[Node]) -> usize {
    let mut max = 0;
    let mut stack: Vec<(&Node, usize)> = nodes.iter().map(|n| (n, 1)).collect();
    while let Some((node, d)) = stack.pop() {
        if let Node::Element(_, children) = node {
            max = max.max(d);
            stack.extend(children.iter().map(|c| (c, d + 1)));
        }
    }
    max
}

#[test]
fn raw_html_rule_inline_html_is_text() {
    assert_eq!(
        parse_markdown("a <img src=x onerror=alert(1)> b"),
        para(vec![
            text("a "),
            Node::RawHtml("<img src=x onerror=alert(1)>".into()),
            text(" b"),
        ])
    );
}

#[test]
fn raw_html_rule_html_blocks_are_text() {
    assert_eq!(
        parse_markdown("<script>alert(1)</script>\n"),
        vec![el(
            Element::HtmlBlock,
            vec![Node::RawHtml("<script>alert(1)</script>\n".into())]
        )]
    );
}

#[test]
fn link_rule_only_http_https_mailto_become_links() {
    assert_eq!(
        parse_markdown("[a](https://x.example/p)"),
        para(vec![el(
            Element::Link(Some("https://x.example/p".into())),
            vec![text("a")]
        )])
    );
    assert_eq!(
        parse_markdown("[m](MAILTO:me@x.example)"),
        para(vec![el(
            Element::Link(Some("MAILTO:me@x.example".into())),
            vec![text("m")]
        )])
    );
    for dest in [
        "javascript:alert(1)",
        "JAVASCRIPT:alert(1)",
        "data:text/html,x",
        "vbscript:x",
        "/rel",
        "rel",
    ] {
        assert_eq!(
            parse_markdown(&format!("[t]({dest})")),
            para(vec![el(Element::Link(None), vec![text("t")])]),
            "{dest}"
        );
    }
}

#[test]
fn link_rule_autolinks_and_reference_links() {
    assert_eq!(
        parse_markdown("<me@x.example>"),
        para(vec![el(
            Element::Link(Some("mailto:me@x.example".into())),
            vec![text("me@x.example")]
        )])
    );
    assert_eq!(
        parse_markdown("[t][r]\n\n[r]: javascript:alert(1)"),
        para(vec![el(Element::Link(None), vec![text("t")])])
    );
    assert_eq!(
        parse_markdown("<javascript:alert(1)>"),
        para(vec![el(Element::Link(None), vec![text("javascript:alert(1)")])])
    );
}

#[test]
fn image_rule_images_keep_only_their_alt_text() {
    assert_eq!(
        parse_markdown("![a *b*](https://x.example/i.png \"t\")"),
        para(vec![el(
            Element::Image,
            vec![text("a "), el(Element::Emphasis, vec![text("b")])]
        )])
    );
}

#[test]
fn gfm_tables_strikethrough_and_tasklists() {
    let tree = parse_markdown("| a | b |\n|:-|-:|\n| 1 | ~~2~~ |\n\n- [x] done\n- [ ] todo\n");
    let cell = |c: Vec<Node>| el(Element::TableCell, c);
    assert_eq!(
        tree[0],
        el(
            Element::Table(vec![Alignment::Left, Alignment::Right]),
            vec![
                el(
                    Element::TableHead,
                    vec![cell(vec![text("a")]), cell(vec![text("b")])]
                ),
                el(
                    Element::TableRow,
                    vec![
                        cell(vec![text("1")]),
                        cell(vec![el(Element::Strikethrough, vec![text("2")])])
                    ]
                ),
            ]
        )
    );
    assert_eq!(
        tree[1],
        el(
            Element::List(None),
            vec![
                el(Element::Item, vec![Node::Task(true), text("done")]),
                el(Element::Item, vec![Node::Task(false), text("todo")]),
            ]
        )
    );
}

#[test]
fn code_blocks_keep_text_and_a_plain_language() {
    assert_eq!(
        parse_markdown("```rust\n<b>x</b>\n```\n"),
        vec![el(
            Element::CodeBlock(Some("rust".into())),
            vec![text("<b>x</b>\n")]
        )]
    );
    assert_eq!(
        parse_markdown("```\"><script>\nx\n```\n"),
        vec![el(Element::CodeBlock(None), vec![text("x\n")])]
    );
}

#[test]
fn deep_nesting_is_flattened() {
    for source in [
        ">".repeat(20_000),
        "- ".repeat(5_000),
        format!("{}x{}", "*".repeat(5_000), "*".repeat(5_000)),
        format!("{}x{}", "[".repeat(5_000), "](http://a)".repeat(5_000)),
    ] {
        let tree = parse_markdown(&source);
        assert!(depth(&tree) <= MAX_NESTING, "depth {}", depth(&tree));
    }
    let tree = parse_markdown(&format!("{}deep", ">".repeat(100)));
    assert_eq!(plain_text(&tree), "deep");
}

#[test]
fn plain_text_keeps_order() {
    let tree = parse_markdown("a *b `c`* d  \ne");
    assert_eq!(plain_text(&tree), "a b c d\ne");
}

proptest! {
    #[test]
    fn markdown_parser_never_panics(s in ".{0,300}") {
        let tree = parse_markdown(&s);
        prop_assert!(depth(&tree) <= MAX_NESTING);
    }

    #[test]
    fn markdown_parser_never_panics_on_markdown_like_input(s in "[-*_`#>|\\[\\]()!<>:/a-z \n]{0,300}") {
        let tree = parse_markdown(&s);
        prop_assert!(depth(&tree) <= MAX_NESTING);
    }
}
